package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// bookLowerBound runs `gamesolver book lower-bound`: a lower bound on the
// length of the Pentominoes game from the empty board. For each winning
// first move (the book's openings), it looks for a reply after which the
// first player cannot end the game within --plies plies
// (polyomino.Lengths.WinsWithin, a false answer being proof whatever the
// book says). When every winning opening has such a reply, the first
// player cannot win in fewer than --plies + 4 plies (the opening, the
// reply, then at least --plies + 2, odd, since he wins): with --plies 5,
// 9. Each opening's line goes to <out>/lower-bound.txt as it is found; a
// run resumes from the lines there.
func bookLowerBound(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("book lower-bound", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", filepath.Join(envOr("GAMESOLVER_DATA_DIR", "./data"), "book"), "directory of lower-bound.txt")
	plies := fs.Int("plies", 5, "the bound: a reply after which the first player cannot end the game within this many plies (odd)")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "openings searched at once")
	tableMB := fs.Int("table-mb", 256, "each search's transposition table (MB)")
	tries := fs.Int("tries", 8, "reply classes tried per opening, in class order, before giving up")
	classes := fs.String("classes", "", "opening classes (indices of the 296 classes of first moves), e.g. 0-49 (default all)")
	verbose := fs.Bool("v", false, "a line per opening")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *plies < 1 || *plies%2 == 0 {
		return errors.New("--plies: an odd number of plies (the first player ends the game on his own move)")
	}
	cfg, err := polyomino.Preset("pentominoes")
	if err != nil {
		return err
	}
	g, err := polyomino.NewGame(cfg)
	if err != nil {
		return err
	}
	empty, err := g.NewPosition(nil, nil, polyomino.DefaultToMove)
	if err != nil {
		return err
	}
	b, err := book.Embedded()
	if err != nil {
		return err
	}
	res, ok := b.Lookup(empty)
	if !ok {
		return errors.New("the book does not know the empty board")
	}
	wins := map[string]bool{}
	for _, mr := range res.Moves {
		if mr.Proven && mr.Outcome == polyomino.Win {
			wins[mr.Move.String()] = true
		}
	}
	children := empty.Children()
	want := make([]int, 0, len(children))
	if *classes != "" {
		if want, err = parseClasses(*classes); err != nil {
			return err
		}
	} else {
		for i := range children {
			want = append(want, i)
		}
	}
	for _, i := range want { // before anything is written
		if i < 0 || i >= len(children) {
			return fmt.Errorf("--classes: %d is not a class (0-%d)", i, len(children)-1)
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(*out, "lower-bound.txt")
	done := map[string]bool{} // openings with a reply found by an earlier run
	fresh := true             // no file yet: its header comes first
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		fresh = false
	}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// One bound per file (its header's, its lines'): a line of
			// another would make this run claim its bound of an opening
			// it never searched for it.
			if m := headerPlies.FindStringSubmatch(sc.Text()); m != nil && m[1] != strconv.Itoa(*plies) {
				_ = f.Close()
				return fmt.Errorf("%s is a file of --plies %s: give --plies %d its own --out (or remove the file)", path, m[1], *plies)
			}
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 || strings.HasPrefix(fields[0], "#") {
				continue
			}
			if within := strings.TrimPrefix(fields[2], "within="); within != strconv.Itoa(*plies) {
				_ = f.Close()
				return fmt.Errorf("%s holds the lines of --plies %s: give --plies %d its own --out (or remove the file)", path, within, *plies)
			}
			// A "none" line (no reply found among those tried) is tried
			// again.
			if len(fields) > 3 && fields[3] == "no" {
				done[fields[0]] = true
			}
		}
		_ = f.Close()
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if fresh {
		if _, err := fmt.Fprintf(f, "# Pentominoes 8x8: for each winning first move, a reply after which the first player cannot end the game within %d plies\n"+
			"# (no=the search found no way; none=no such reply among the first classes tried). Written by gamesolver book lower-bound.\n", *plies); err != nil {
			return err
		}
	}
	type job struct {
		class int
		move  string
		pos   *polyomino.Position
	}
	var todo []job
	before := 0 // the classes asked that an earlier run did
	for _, i := range want {
		m := children[i].Moves[0].String()
		if !wins[m] {
			continue // a losing opening: the first player does not play it
		}
		if done[m] {
			before++
			continue
		}
		todo = append(todo, job{i, m, children[i].Position})
	}
	fmt.Fprintf(stderr, "%d winning openings among the classes asked, %d done before, %d to search\n", len(todo)+before, before, len(todo))
	var mu sync.Mutex
	found, missing := 0, 0
	var firstErr error
	work := make(chan job)
	var wg sync.WaitGroup
	for range max(1, *parallel) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tt := polyomino.NewTable(*tableMB)
			for j := range work {
				line, ok, err := lowerBoundOf(ctx, j.move, j.pos, *plies, *tries, tt)
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				default:
					if _, werr := fmt.Fprintln(f, line); werr != nil && firstErr == nil {
						firstErr = werr
					}
					if ok {
						found++
					} else {
						missing++
					}
					if *verbose {
						fmt.Fprintf(stderr, "class %d: %s\n", j.class, line)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range todo {
		if ctx.Err() != nil {
			break
		}
		work <- j
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	found += before
	fmt.Fprintf(stdout, "%d winning openings with a reply the first player cannot answer with a win within %d plies, %d without one found; %s\n", found, *plies, missing, path)
	if missing == 0 && *classes == "" {
		fmt.Fprintf(stdout, "every winning opening: the first player cannot win in fewer than %d plies\n", *plies+4)
	}
	return nil
}

// lowerBoundOf tries the replies to opening (pos is the position after it)
// in class order, at most tries of them, for one after which the first
// player cannot end the game within plies, and returns the line that says
// what was found, and whether it found one.
func lowerBoundOf(ctx context.Context, opening string, pos *polyomino.Position, plies, tries int, tt *polyomino.Table) (string, bool, error) {
	var nodes int64
	start := time.Now()
	for k, c := range pos.Children() {
		if k >= tries {
			break
		}
		x := polyomino.NewLengths(ctx, c.Position, polyomino.LengthOptions{Table: tt})
		if x == nil {
			continue
		}
		ok, done, n := x.WinsWithin(plies)
		x.Close()
		nodes += n
		if !done {
			if err := ctx.Err(); err != nil {
				return "", false, err
			}
			continue
		}
		if !ok {
			return fmt.Sprintf("%s %s within=%d no nodes=%d ms=%d", opening, c.Moves[0], plies, nodes, time.Since(start).Milliseconds()), true, nil
		}
	}
	return fmt.Sprintf("%s none within=%d tries=%d nodes=%d ms=%d", opening, plies, tries, nodes, time.Since(start).Milliseconds()), false, nil
}

// headerPlies reads the bound of a lower-bound file's header.
var headerPlies = regexp.MustCompile(`^# .*cannot end the game within (\d+) plies`)
