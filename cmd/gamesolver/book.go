package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gamesolver/gamesolver/engine/atomicfile"
	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/verify"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/jobs"
)

const bookUsage = `usage:
  gamesolver book build [--what certificate|position|openings|refutation] [--out DIR] [--jobs] [flags]
      certificate: find the first move on the empty board by search, then a winning
                   third move for every class of replies (certificate.txt)
      position:    classify every class of moves of --moves (default the long-L
                   opening L:c4,d4,e4,f4,c5) with a winning reply for each losing one
      openings:    classify the first moves --classes (indices of the 296 classes)
      refutation:  prove the last of --moves (a winning reply, e.g. of a losing opening)
                   wins: a winning answer to every class of moves after it (refutation.txt,
                   a proof in the certificate's form)
      --jobs:      the classes become units of a polyomino.book job, in process or,
                   with REDIS_URL, shared with "gamesolver book worker" processes
  gamesolver book verify [--file F] [--sample N] [--workers N] [--memo-bits B] [--costs FILE]
      check a certificate, a refutation or a reply file (default: the embedded certificate) with the
      independent checker, re-solving every position after an answer (or N of them)
  gamesolver book worker [--slots N] [--workers N] [--table-mb MB] [--redis-url URL] [--name NAME]
      run polyomino.book units from REDIS_URL
  gamesolver book stats [--all]
      what the embedded book holds
  gamesolver book merge [--into engine/book/data/openings.txt] FILE...
      add the first moves classified in build outputs (openings.txt of --what openings)
      to the book's openings file, sorted by class, without their costs
  gamesolver book lower-bound [--plies 5] [--out DIR] [--classes 0-295] [--parallel N] [--table-mb MB] [--tries N] [-v]
      for each winning first move, a reply after which the first player cannot end the
      game within --plies plies (lower-bound.txt): when every one has one, the game from
      the empty board lasts at least --plies + 4 plies (one --plies per --out)
  Each command's -h lists all its flags.`

// bookCommand runs `gamesolver book ...`.
func bookCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		//lint:ignore ST1005 the usage, printed as it is
		return errors.New(bookUsage)
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, bookUsage)
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "build":
		return bookBuild(ctx, args[1:], stdout, stderr)
	case "verify":
		return bookVerify(ctx, args[1:], stdout, stderr)
	case "worker":
		return bookWorker(ctx, args[1:], stderr)
	case "stats":
		return bookStats(args[1:], stdout, stderr)
	case "merge":
		return bookMerge(args[1:], stdout, stderr)
	case "lower-bound":
		return bookLowerBound(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("book: unknown subcommand %q\n%s", args[0], bookUsage)
}

// bookFlags are the settings of a build.
type bookFlags struct {
	what, out, moves, classes, redisURL string
	tableMB, workers, slots, parallel   int
	classWorkers, preferReplies         int
	jobs, verbose, costs, resume        bool
	lengths                             bool
}

func bookBuild(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("book build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f bookFlags
	fs.StringVar(&f.what, "what", "certificate", "certificate, position, openings or refutation (--moves up to a winning reply: every reply to it classified, written as a proof the checker takes)")
	fs.StringVar(&f.out, "out", filepath.Join(envOr("GAMESOLVER_DATA_DIR", "./data"), "book"), "directory for the files written")
	fs.StringVar(&f.moves, "moves", "", "the position's moves from the empty board, space separated (--what position: default the long-L opening L:c4,d4,e4,f4,c5; openings: the empty board)")
	fs.StringVar(&f.classes, "classes", "", "--what position or openings: class indices in the order of the position's classes, e.g. 0-49,60 (default all)")
	fs.IntVar(&f.tableMB, "table-mb", 2048, "transposition table shared by the searches of this process (MB)")
	fs.IntVar(&f.workers, "workers", 0, "search goroutines of the certificate's search for the first move (0: every core)")
	fs.IntVar(&f.parallel, "parallel", runtime.GOMAXPROCS(0), "classes solved at once (in process; with --jobs: slots of the local worker)")
	fs.IntVar(&f.classWorkers, "class-workers", 1, "search goroutines of each class's search")
	fs.IntVar(&f.preferReplies, "prefer-replies", 8, "--what position or openings: each search tries first the N winning replies found most often so far in this process (0: none; 8 took a quarter to a half off the first 300 replies of two edge openings)")
	fs.BoolVar(&f.lengths, "lengths", false, "--what position: also how many plies the game lasts after each move (plies=N), a losing move's reply then a fastest win (not with --jobs)")
	fs.BoolVar(&f.jobs, "jobs", false, "run the classes as units of a polyomino.book job (REDIS_URL: shared with book workers)")
	fs.IntVar(&f.slots, "local-slots", -1, "--jobs: units run by this process at once (default --parallel; 0: only coordinate, book workers run the units)")
	fs.StringVar(&f.redisURL, "redis-url", os.Getenv("REDIS_URL"), "--jobs: Redis URL (default REDIS_URL; empty: in process)")
	fs.BoolVar(&f.verbose, "v", false, "a line per classified move")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the build to this file")
	fs.BoolVar(&f.costs, "costs", true, "record each class's nodes and time in the file (progress.txt always has them)")
	fs.BoolVar(&f.resume, "resume", true, "take the lines of <out>/progress.txt (an earlier, interrupted build) instead of searching their classes again (not with --jobs, whose job store keeps its work)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if f.what == "position" && f.moves == "" {
		f.moves = "L:c4,d4,e4,f4,c5"
	}
	// Bad values are refused before --out is made and locked (and before
	// a first class is searched).
	switch f.what {
	case "certificate", "position", "refutation", "openings":
	default:
		return fmt.Errorf("--what %q: expected certificate, position, refutation or openings", f.what)
	}
	if f.lengths && (f.jobs || f.what != "position") {
		return errors.New("--lengths: with --what position only, and not with --jobs")
	}
	if err := checkClasses(f); err != nil {
		return err
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	// Two builds into one --out would search the same classes, each
	// appending them to progress.txt (a --jobs build's store locks its
	// jobs/ below as well).
	unlock, err := jobs.LockDir(f.out)
	if errors.Is(err, jobs.ErrDirInUse) {
		return fmt.Errorf("--out %s: another build is writing there (see %s); wait for it to end, or give this one its own --out", f.out, filepath.Join(f.out, "lock"))
	}
	if err != nil {
		return err
	}
	defer func() { _ = unlock() }()
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = pf.Close()
		}()
	}
	opts := &book.Options{Workers: f.classWorkers, Parallel: f.parallel, TableMB: f.tableMB, PreferReplies: f.preferReplies, Lengths: f.lengths}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	if f.verbose {
		opts.Log = logf
	}
	t0 := time.Now()
	// The searches keep a large table that holds no pointers: collecting
	// garbage often costs little, and keeps the heap near the table's size.
	debug.SetGCPercent(20)
	// Each classified class is appended to <out>/progress.txt as it is
	// found, so that an interrupted build keeps its work: with --resume, a
	// build takes the lines found before from there.
	progressPath := filepath.Join(f.out, "progress.txt")
	var known map[string]map[string]book.Line
	if f.resume {
		var err error
		if known, err = readProgress(progressPath); err != nil {
			return err
		}
	}
	progress, err := os.OpenFile(progressPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := progress.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("progress file: %w", cerr)
		}
	}()
	// A line the progress file cannot take (a full disk) stops the build:
	// it would go on for hours and lose what --resume needs.
	var classify classifier = func(ctx context.Context, moves []string, classes []int, untilWin bool) (book.Section, error) {
		if _, err := fmt.Fprintf(progress, "position %s\n", positionArg(moves)); err != nil {
			return book.Section{}, fmt.Errorf("progress file: %w", err)
		}
		opts.Known = known[positionArg(moves)]
		return classifyDirect(ctx, moves, classes, untilWin, opts, func(l book.Line) error {
			b := (&book.File{Sections: []book.Section{{Lines: []book.Line{l}}}}).Format()
			if _, err := progress.Write(b[len("position start\n"):]); err != nil {
				return fmt.Errorf("progress file: %w", err)
			}
			return nil
		})
	}
	if f.jobs {
		jc, closeJobs, err := newBookJobs(ctx, f, logf)
		if err != nil {
			return err
		}
		defer closeJobs()
		classify = jc
	}
	switch f.what {
	case "certificate":
		start := book.Pentominoes().Start()
		// The first moves the search refutes before it finds a winning one
		// are classified on the way: keep them for the openings.
		var refuted []book.Line
		opts.Decided = func(l book.Line) {
			if !l.Wins {
				refuted = append(refuted, l)
			}
		}
		opts.Workers = f.workers // one search: every core
		first, ok, res, err := book.FirstWin(ctx, start, opts)
		opts.Decided, opts.Workers = nil, f.classWorkers
		if ctx.Err() != nil {
			return ctx.Err() // interrupted, not "not proven"
		}
		if err != nil {
			return fmt.Errorf("empty board: %w", err)
		}
		if !ok {
			return errors.New("empty board: the search proves it lost for the first player")
		}
		firstTime := time.Since(t0)
		logf("first move %s: %d nodes, %.1fs", first, res.Nodes, firstTime.Seconds())
		sec, err := classify(ctx, []string{first.String()}, nil, true)
		if err != nil {
			return err
		}
		cf, err := book.NewCertificate(first, res, firstTime, sec)
		if err != nil {
			return err
		}
		data := cf.Format()
		path := filepath.Join(f.out, "certificate.txt")
		if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		if len(refuted) > 0 {
			of := &book.File{Comments: []string{" First moves refuted by the search for the first player's winning move."},
				Sections: []book.Section{{Lines: refuted}}}
			if err := atomicfile.WriteFile(filepath.Join(f.out, "openings-refuted.txt"), of.Format(), 0o644); err != nil {
				return err
			}
		}
		var nodes int64
		for _, l := range sec.Lines {
			nodes += l.Nodes
		}
		fmt.Fprintf(stdout, "%d first moves refuted on the way; ", len(refuted))
		fmt.Fprintf(stdout, "first move %s: %d nodes, %.1fs; %d reply classes: %d nodes, %.1fs; total %.1fs; %s (%d bytes)\n",
			first, res.Nodes, firstTime.Seconds(), len(sec.Lines), nodes, (time.Since(t0) - firstTime).Seconds(),
			time.Since(t0).Seconds(), path, len(data))
	case "openings":
		return bookOpenings(ctx, f, classify, stdout, logf)
	case "position":
		moves := strings.Fields(f.moves)
		name := "position.txt"
		classes, err := parseClasses(f.classes)
		if err != nil {
			return err
		}
		sec, err := classify(ctx, moves, classes, false)
		if err != nil {
			return err
		}
		wins, nodes := 0, int64(0)
		for i, l := range sec.Lines {
			if l.Wins {
				wins++
			}
			nodes += l.Nodes
			if !f.costs {
				sec.Lines[i].Nodes, sec.Lines[i].Elapsed = 0, 0
			}
		}
		path := filepath.Join(f.out, name)
		file := &book.File{Sections: []book.Section{sec}, Comments: []string{
			fmt.Sprintf(" Pentominoes 8x8, the position after %q: %d classes of moves proven by search, %d of them winning for their maker", positionArg(moves), len(sec.Lines), wins),
			" (a losing move with a winning reply found by the search). Written by gamesolver book build; see package engine/book.",
		}}
		if err := atomicfile.WriteFile(path, file.Format(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "position %q: %d classes classified, %d win for their maker; %d nodes, %.1fs; %s\n",
			strings.Join(moves, " "), len(sec.Lines), wins, nodes, time.Since(t0).Seconds(), path)
	case "refutation":
		moves := strings.Fields(f.moves)
		if len(moves) == 0 {
			return errors.New("--what refutation: --moves names the moves up to the winning reply, e.g. \"F:d3,e3,e4,f4,e5 T:d4,b5,c5,d5,d6\"")
		}
		sec, err := classify(ctx, moves, nil, true)
		if err != nil {
			return fmt.Errorf("%s does not win: %w", moves[len(moves)-1], err)
		}
		rf, err := book.NewRefutation(moves, sec)
		if err != nil {
			return err
		}
		var nodes int64
		for _, l := range sec.Lines {
			nodes += l.Nodes
		}
		path := filepath.Join(f.out, "refutation.txt")
		if err := atomicfile.WriteFile(path, rf.Format(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "position %q: %s wins, all %d classes of replies lose; %d nodes, %.1fs; %s\n",
			positionArg(moves[:len(moves)-1]), moves[len(moves)-1], len(sec.Lines), nodes, time.Since(t0).Seconds(), path)
	default:
		return fmt.Errorf("--what %q: expected certificate, position, refutation or openings", f.what)
	}
	return nil
}

// bookOpenings classifies classes of moves of a position (the first moves
// of the empty board by default) one at a time, each by classifying the
// replies to it (in parallel, until one wins): a move wins when every
// reply loses, and loses with the first winning reply found. Each line is
// appended to <out>/openings.txt as it is found, with its cost; the reply
// section of each move goes to <out>/replies-<class>.txt.
func bookOpenings(ctx context.Context, f bookFlags, classify classifier, stdout io.Writer, logf func(string, ...any)) error {
	moves := strings.Fields(f.moves)
	pos, err := book.PositionAfter(moves)
	if err != nil {
		return err
	}
	children := pos.Children()
	classes, err := parseClasses(f.classes)
	if err != nil {
		return err
	}
	if classes == nil {
		for i := range children {
			classes = append(classes, i)
		}
	}
	path := filepath.Join(f.out, "openings.txt")
	out, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	fmt.Fprintf(out, "position %s\n", positionArg(moves))
	for _, c := range classes { // in range: checkClasses, before --out was made
		m := children[c].Moves[0].String()
		t0 := time.Now()
		sec, err := classify(ctx, append(append([]string(nil), moves...), m), nil, true)
		l := book.Line{Move: m, Class: len(children[c].Moves), Wins: true, Elapsed: time.Since(t0)}
		for _, r := range sec.Lines {
			l.Nodes += r.Nodes
			if r.Wins && l.Wins {
				l.Wins, l.Reply = false, r.Move
			}
		}
		switch {
		case errors.Is(err, book.ErrRefuted) && !l.Wins:
		case err != nil:
			return fmt.Errorf("class %d (%s): %w", c, m, err)
		}
		rf := &book.File{Sections: []book.Section{sec}}
		if err := atomicfile.WriteFile(filepath.Join(f.out, fmt.Sprintf("replies-%d.txt", c)), rf.Format(), 0o644); err != nil {
			return err
		}
		b := (&book.File{Sections: []book.Section{{Lines: []book.Line{l}}}}).Format()
		if _, err := out.Write(b[len("position start\n"):]); err != nil {
			return err
		}
		logf("class %d %s: %s %s, %d reply classes searched, %d nodes, %.1fs", c, m, l.Outcome(), l.Reply, len(sec.Lines), l.Nodes, l.Elapsed.Seconds())
		fmt.Fprintf(stdout, "%d %s %d %s %s nodes=%d ms=%d\n", c, l.Move, l.Class, l.Outcome(), l.Reply, l.Nodes, l.Elapsed.Milliseconds())
	}
	return nil
}

// classifier classifies classes of moves of the position after moves (nil
// classes: all); untilWin stops at the first move that wins for its maker.
type classifier func(ctx context.Context, moves []string, classes []int, untilWin bool) (book.Section, error)

func classifyDirect(ctx context.Context, moves []string, classes []int, untilWin bool, opts *book.Options, found func(book.Line) error) (book.Section, error) {
	pos, err := book.PositionAfter(moves)
	if err != nil {
		return book.Section{}, err
	}
	return book.Classify(ctx, moves, pos, classes, opts, func(l book.Line) error {
		if err := found(l); err != nil {
			return err
		}
		if untilWin && l.Wins {
			return fmt.Errorf("move %s wins for its maker: %w", l.Move, book.ErrRefuted)
		}
		return nil
	})
}

// readProgress reads the lines of a progress file by position (none when
// the file does not exist). A line that does not parse, such as the last
// one of a build killed while writing it, is skipped.
func readProgress(path string) (map[string]map[string]book.Line, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	known := map[string]map[string]book.Line{}
	var lines map[string]book.Line
	for _, text := range strings.Split(string(data), "\n") {
		if pos, ok := strings.CutPrefix(text, "position "); ok {
			if lines = known[pos]; lines == nil {
				lines = map[string]book.Line{}
				known[pos] = lines
			}
			continue
		}
		if lines == nil || strings.TrimSpace(text) == "" {
			continue
		}
		f, err := book.Parse([]byte("position start\n" + text + "\n"))
		if err != nil || len(f.Sections) != 1 || len(f.Sections[0].Lines) != 1 {
			continue
		}
		l := f.Sections[0].Lines[0]
		lines[l.Move] = l
	}
	return known, nil
}

func positionArg(moves []string) string {
	if len(moves) == 0 {
		return "start"
	}
	return strings.Join(moves, " ")
}

// checkClasses checks --moves and --classes (against the classes of the
// position --what openings or position classifies).
func checkClasses(f bookFlags) error {
	classes, err := parseClasses(f.classes)
	if err != nil {
		return err
	}
	pos, err := book.PositionAfter(strings.Fields(f.moves))
	if err != nil {
		return fmt.Errorf("--moves: %w", err)
	}
	if f.what != "openings" && f.what != "position" {
		return nil
	}
	n := len(pos.Children())
	for _, c := range classes {
		if c >= n {
			return fmt.Errorf("--classes: class %d: the position has classes 0..%d", c, n-1)
		}
	}
	return nil
}

// maxClass bounds the class indices parseClasses takes: no position has
// that many classes of moves (the empty board has 296, the positions one
// move in about 1,200).
const maxClass = 99_999

// parseClasses reads "0-49,60".
func parseClasses(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("--classes %q: %q is not a number", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, fmt.Errorf("--classes %q: bad range %q", s, part)
			}
		}
		if a < 0 || b > maxClass {
			// Checked before the range is listed: 0-9999999999 would
			// take all the memory first.
			return nil, fmt.Errorf("--classes %q: %q is beyond any position's classes (0-%d)", s, part, maxClass)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// newBookJobs makes a classifier over the job system: a Manager with the
// polyomino.book kind over Redis (f.redisURL) or in process, and local
// worker slots.
func newBookJobs(ctx context.Context, f bookFlags, logf func(string, ...any)) (classifier, func(), error) {
	kind := service.NewBookJob(0, f.classWorkers, f.tableMB)
	jm, closeStore, err := bookManager(f.redisURL, filepath.Join(f.out, "jobs"), kind, zap.NewNop())
	if err != nil {
		return nil, nil, err
	}
	slots := f.slots
	if slots < 0 {
		// This process works too, also when book workers share the units
		// through Redis: with --local-slots 0 and no worker, nothing would run.
		slots = f.parallel
	}
	wctx, stopWorker := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if slots > 0 {
			_ = jm.RunWorker(wctx, bookWorkerName(), slots)
		}
	}()
	closeAll := func() {
		stopWorker()
		<-done
		closeStore()
	}
	return func(ctx context.Context, moves []string, classes []int, untilWin bool) (book.Section, error) {
		req, _ := json.Marshal(service.BookJobRequest{Moves: moves, UntilWin: untilWin, Classes: classes})
		job, err := jm.Submit(ctx, kind.Name(), req)
		if err != nil {
			return book.Section{}, err
		}
		logf("job %s: %d units", job.ID, job.Progress.Total)
		last := time.Now()
		for !job.Status.Final() {
			select {
			case <-ctx.Done():
				_, _ = jm.Cancel(context.Background(), job.ID)
				return book.Section{}, ctx.Err()
			case <-time.After(time.Second):
			}
			if job, err = jm.Get(ctx, job.ID); err != nil {
				return book.Section{}, err
			}
			if time.Since(last) >= 10*time.Second {
				last = time.Now()
				logf("job %s: %s %d/%d units, %d nodes, %.0fs", job.ID, job.Status, job.Progress.Done, job.Progress.Total, job.Progress.Nodes, float64(job.Progress.ElapsedMS)/1000)
			}
		}
		if job.Status != jobs.StatusDone {
			return book.Section{}, fmt.Errorf("job %s %s: %s", job.ID, job.Status, job.Error)
		}
		var res service.BookJobResult
		if err := json.Unmarshal(job.Result, &res); err != nil {
			return book.Section{}, err
		}
		logf("job %s: done, %d units, %d nodes, %.1fs", job.ID, len(res.Lines), res.Nodes, float64(job.Progress.ElapsedMS)/1000)
		sec := book.Section{Moves: moves}
		for _, l := range res.Lines {
			sec.Lines = append(sec.Lines, l.Line)
		}
		if untilWin && res.Wins > 0 {
			return sec, fmt.Errorf("a move wins for its maker: %w", book.ErrRefuted)
		}
		return sec, nil
	}, closeAll, nil
}

// bookManager builds a job manager knowing only the book kind.
func bookManager(redisURL, dir string, kind service.BookJob, log *zap.Logger) (*jobs.Manager, func(), error) {
	// A build's job is the batch the workers are there for: every unit
	// queued at once, as many running as there are slots.
	store, closeStore, err := openJobStore(redisURL, dir, 1<<30, nil)
	if err != nil {
		return nil, nil, err
	}
	jm, err := jobs.NewManager(store, []jobs.Kind{kind}, jobs.Options{Logger: log})
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return jm, closeStore, nil
}

// bookWorker runs `gamesolver book worker`: polyomino.book units from Redis.
func bookWorker(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("book worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	slots := fs.Int("slots", 1, "units run at once")
	workers := fs.Int("workers", 0, "search goroutines of each unit (0: every core)")
	tableMB := fs.Int("table-mb", 1024, "transposition table shared by this worker's units (MB)")
	redisURL := fs.String("redis-url", os.Getenv("REDIS_URL"), "Redis URL (default REDIS_URL)")
	name := fs.String("name", "", "worker name, unique among running workers (default book-<host>-<pid>)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *redisURL == "" {
		return errors.New("book worker needs REDIS_URL (or --redis-url)")
	}
	// Warnings on stderr: a worker whose Redis cannot be reached says so
	// (and keeps trying) instead of waiting in silence.
	log := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(stderr), zap.WarnLevel))
	jm, closeStore, err := bookManager(*redisURL, "", service.NewBookJob(0, *workers, *tableMB), log)
	if err != nil {
		return err
	}
	defer closeStore()
	if *name == "" {
		*name = bookWorkerName()
	}
	debug.SetGCPercent(20)
	err = jm.RunWorker(ctx, *name, *slots)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// bookVerify runs `gamesolver book verify`.
func bookVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("book verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("file", "", "certificate, refutation or reply file to check (default: the embedded certificate)")
	sample := fs.Int("sample", 0, "re-solve only this many positions after the answers (third-ply positions of the certificate; 0: all)")
	workers := fs.Int("workers", 2, "positions re-solved at once")
	memoBits := fs.Int("memo-bits", 23, "memo of each checker solver: 2^N entries of 16 bytes (10-30)")
	costs := fs.String("costs", "", "write each re-solved position's nodes and time to this file")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *memoBits < 10 || *memoBits > 30 {
		return fmt.Errorf("--memo-bits %d: from 10 to 30 (2^30 entries are 16 GiB per solver)", *memoBits)
	}
	data := book.EmbeddedCertificate()
	if *file != "" {
		var err error
		if data, err = os.ReadFile(*file); err != nil {
			return err
		}
	}
	g, err := verify.NewGame()
	if err != nil {
		return err
	}
	t0 := time.Now()
	last := t0
	rep, err := verify.Check(ctx, g, data, verify.Options{Sample: *sample, Workers: *workers, MemoBits: *memoBits,
		Progress: func(done, total int, nodes int64) {
			if time.Since(last) > 10*time.Second || done == total {
				last = time.Now()
				fmt.Fprintf(stderr, "%d/%d positions re-solved, %d nodes, %.0fs\n", done, total, nodes, time.Since(t0).Seconds())
			}
		}})
	if *costs != "" && len(rep.Costs) > 0 {
		idx := make([]int, 0, len(rep.Costs))
		for i := range rep.Costs {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var sb strings.Builder
		for _, i := range idx {
			c := rep.Costs[i]
			fmt.Fprintf(&sb, "%d %d %d %s\n", i, c.Nodes, c.Elapsed.Milliseconds(), c.Line)
		}
		if werr := atomicfile.WriteFile(*costs, []byte(sb.String()), 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	// A sample re-solves some answers: the others were checked for form
	// and legality only, and the message must not say they win.
	partial := rep.Solved < rep.Classes
	if rep.Root == "" {
		if partial {
			fmt.Fprintf(stdout, "sampled check passed: first move %s; %d replies in %d classes, each with a legal third move; %d of the %d third-ply positions re-solved (each lost for the player to move), the other answers not re-checked (--sample 0 re-solves them all), %d nodes, %.1fs\n",
				rep.FirstMove, rep.Replies, rep.Classes, rep.Solved, rep.Classes, rep.Nodes, rep.Elapsed.Seconds())
			return nil
		}
		fmt.Fprintf(stdout, "certificate accepted: first move %s; %d replies in %d classes, each with a winning third move; %d third-ply positions re-solved (each lost for the player to move), %d nodes, %.1fs\n",
			rep.FirstMove, rep.Replies, rep.Classes, rep.Solved, rep.Nodes, rep.Elapsed.Seconds())
		return nil
	}
	if partial {
		fmt.Fprintf(stdout, "sampled check passed: after %s, %s; %d replies in %d classes, each with a legal answer; %d of the %d positions after the answers re-solved (each lost for the player to move), the other answers not re-checked (--sample 0 re-solves them all), %d nodes, %.1fs\n",
			rep.Root, rep.FirstMove, rep.Replies, rep.Classes, rep.Solved, rep.Classes, rep.Nodes, rep.Elapsed.Seconds())
		return nil
	}
	fmt.Fprintf(stdout, "refutation accepted: after %s, %s wins; %d replies in %d classes, each with a winning answer; %d positions after the answers re-solved (each lost for the player to move), %d nodes, %.1fs\n",
		rep.Root, rep.FirstMove, rep.Replies, rep.Classes, rep.Solved, rep.Nodes, rep.Elapsed.Seconds())
	return nil
}

// bookMerge adds build outputs to the openings file (book.MergeOpenings).
func bookMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("book merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	into := fs.String("into", "engine/book/data/openings.txt", "the openings file to update")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("book merge: name the build outputs to merge (openings.txt of book build --what openings)")
	}
	read := func(path string) (*book.File, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := book.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return f, nil
	}
	target, err := read(*into)
	if err != nil {
		return err
	}
	var from []*book.File
	for _, path := range fs.Args() {
		f, err := read(path)
		if err != nil {
			return err
		}
		from = append(from, f)
	}
	merged, err := book.MergeOpenings(target, from...)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(*into, merged.Format(), 0o644); err != nil {
		return err
	}
	before := 0
	if s := target.Section(nil); s != nil {
		before = len(s.Lines)
	}
	lines := merged.Section(nil).Lines
	wins := 0
	for _, l := range lines {
		if l.Wins {
			wins++
		}
	}
	fmt.Fprintf(stdout, "%s: %d classes (%d were there), %d wins, %d losses; run go test ./engine/book (each loss needs its refutation-<class>.txt)\n",
		*into, len(lines), before, wins, len(lines)-wins)
	return nil
}

// bookStats runs `gamesolver book stats`.
func bookStats(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("book stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all := fs.Bool("all", false, "index the reply files too (seconds; the server indexes each when a position of its opening is first asked)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	t0 := time.Now()
	b, err := book.Embedded()
	if err != nil {
		return err
	}
	files := book.Files()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stdout, "%s: %d bytes\n", n, len(files[n]))
	}
	fmt.Fprintf(stdout, "%d positions (up to symmetry) without the reply files (but those with plies, which give the empty board's length), %d of them with the game's length, loaded in %v\n", b.Size(), b.Lengths(), time.Since(t0).Round(time.Millisecond))
	lazy, _ := b.Lazy()
	if !*all {
		fmt.Fprintf(stdout, "%d reply files, indexed when a position of theirs is first asked (--all: index them now)\n", lazy)
		return nil
	}
	t1 := time.Now()
	if err := b.LoadAll(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d positions with the %d reply files, indexed in %v\n", b.Size(), lazy, time.Since(t1).Round(time.Millisecond))
	return nil
}

// bookWorkerName is a book worker's default name: a job worker's (its host
// and its pid; the pid alone was 1 in every container) after "book-".
func bookWorkerName() string { return "book-" + workerName(config{}) }
