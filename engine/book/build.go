package book

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// ErrNotProven is returned when a search ends (budget, cancellation)
// before it proves what the book needs.
var ErrNotProven = errors.New("not proven")

// ErrRefuted is returned when the search finds that a claimed win is not
// one (the certificate cannot be built from that move).
var ErrRefuted = errors.New("refuted")

// Options steer the builders.
type Options struct {
	// Workers is the number of search goroutines of each Solve (0: every core).
	Workers int
	// Parallel is the number of classes Classify solves at once, each with
	// Workers goroutines (0: 1). Separate searches share the table but no
	// work, so two single-goroutine searches use two cores better than one
	// search on two (whose goroutines sometimes search what the other
	// refutes).
	Parallel int
	// Table is shared by every Solve of a build (nil: one of TableMB
	// megabytes, default 1024, made for the build).
	Table   *polyomino.Table
	TableMB int
	// Progress, if set, is called with the nodes of the running search.
	Progress func(nodes int64)
	// Log, if set, receives one line per finished step.
	Log func(format string, args ...any)
	// Decided, if set, sees the lines of the moves each search decides on
	// its way (a search for one winning move refutes the moves it tries
	// first, each with a winning reply): polyomino.Options.Decided as
	// lines, without costs. Calls are serialised.
	Decided func(Line)
	// PreferReplies: Classify has each search try first the PreferReplies
	// winning replies found most often so far (0: none).
	PreferReplies int
	// Known are lines found before, by the class's first move: Classify
	// takes a class's line from here, without a search, when the move and
	// the class size match (a build resumed from its progress file).
	Known map[string]Line
	// Lengths: ClassifyMove also finds how many plies the game lasts
	// after each move (polyomino.Length, on the build's table, after the
	// proof), and gives a losing move the length search's fastest win as
	// its reply. Known lines without their plies are searched again.
	Lengths bool
	prefer  []polyomino.Move // set per search by Classify
}

func (o *Options) table() *polyomino.Table {
	if o.Table == nil {
		mb := o.TableMB
		if mb <= 0 {
			mb = 1024
		}
		o.Table = polyomino.NewTable(mb)
	}
	return o.Table
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

func (o *Options) solveOptions() polyomino.Options {
	po := polyomino.Options{FirstWin: true, Workers: o.Workers, Table: o.table(), Progress: o.Progress, Prefer: o.prefer}
	if o.Decided != nil {
		po.Decided = func(class []polyomino.Move, value int, refutation *polyomino.Move) {
			l := Line{Move: class[0].String(), Class: len(class), Wins: value > 0}
			if refutation != nil {
				l.Reply = refutation.String()
			}
			if l.Wins || l.Reply != "" {
				o.Decided(l)
			}
		}
	}
	return po
}

// Pentominoes is the game of the book: the pentominoes preset (8 x 8, the
// 12 pentominoes in a common pool, normal play).
func Pentominoes() *polyomino.Game {
	cfg, err := polyomino.Preset("pentominoes")
	if err != nil {
		panic(err) // the preset is part of the engine
	}
	g, err := polyomino.NewGame(cfg)
	if err != nil {
		panic(err)
	}
	return g
}

// PositionAfter plays moves (notation) from the start of the pentominoes game.
func PositionAfter(moves []string) (*polyomino.Position, error) {
	return Pentominoes().NewPosition(nil, moves, polyomino.DefaultToMove)
}

// ClassifyMove solves the position after move (one of the class) by
// search: the move wins for its maker when the position after it is lost
// for the player to move; otherwise Reply is a winning reply found by the
// search (Options.FirstWin). The line records the search's cost.
func ClassifyMove(ctx context.Context, pos *polyomino.Position, class []polyomino.Move, opts *Options) (Line, error) {
	if len(class) == 0 {
		return Line{}, fmt.Errorf("empty class of moves")
	}
	child, err := pos.Play(class[0])
	if err != nil {
		return Line{}, fmt.Errorf("move %s: %w", class[0], err)
	}
	t0 := time.Now()
	res, err := polyomino.Solve(ctx, child, opts.solveOptions())
	if err != nil {
		return Line{}, err
	}
	l := Line{Move: class[0].String(), Class: len(class), Nodes: res.Nodes, Elapsed: time.Since(t0)}
	if !res.Proven {
		return l, fmt.Errorf("position after %s: %w after %d nodes", l.Move, ErrNotProven, res.Nodes)
	}
	var fastest *polyomino.Move
	if opts.Lengths {
		var err error
		if l.Plies, fastest, err = lengthAfter(ctx, child, res.Outcome, opts, &l); err != nil {
			return l, fmt.Errorf("position after %s: %w", l.Move, err)
		}
	}
	switch res.Outcome {
	case polyomino.Loss:
		l.Wins = true
	case polyomino.Win:
		if len(res.BestMoves) == 0 {
			return l, fmt.Errorf("position after %s: won without a winning move", l.Move)
		}
		l.Reply = res.BestMoves[0].String()
		if fastest != nil {
			l.Reply = fastest.String()
		}
	default:
		return l, fmt.Errorf("position after %s: outcome %s under normal play", l.Move, res.Outcome)
	}
	return l, nil
}

// lengthAfter is how many plies the game lasts from pos (of value
// outcome for the player to move) and, when pos is won, a fastest win: the
// length search's own, else the first legal move FastestWin finds as
// fast. Its cost is added to l's.
func lengthAfter(ctx context.Context, pos *polyomino.Position, outcome polyomino.Outcome, opts *Options, l *Line) (*int, *polyomino.Move, error) {
	x := polyomino.NewLengths(ctx, pos, polyomino.LengthOptions{Table: opts.table()})
	defer x.Close()
	t0 := time.Now()
	defer func() { l.Elapsed += time.Since(t0) }()
	lr := x.Length(outcome)
	l.Nodes += lr.Nodes
	if !lr.Proven {
		return nil, nil, fmt.Errorf("length %w after %d nodes", ErrNotProven, lr.Nodes)
	}
	fastest := lr.Fastest
	if outcome == polyomino.Win && fastest == nil {
		legal := pos.LegalMoves()
		i, nodes := x.FastestWin(legal, lr.Plies)
		l.Nodes += nodes
		if i < 0 {
			return nil, nil, fmt.Errorf("won in %d plies: no fastest win found (%w)", lr.Plies, ErrNotProven)
		}
		fastest = &legal[i]
	}
	return &lr.Plies, fastest, nil
}

// FirstWin finds, by search, a winning move of pos (the first found, with
// Options.FirstWin); ok is false when pos is lost.
func FirstWin(ctx context.Context, pos *polyomino.Position, opts *Options) (move polyomino.Move, ok bool, res polyomino.Result, err error) {
	res, err = polyomino.Solve(ctx, pos, opts.solveOptions())
	if err != nil {
		return move, false, res, err
	}
	if !res.Proven {
		return move, false, res, fmt.Errorf("%w after %d nodes", ErrNotProven, res.Nodes)
	}
	if res.Outcome != polyomino.Win {
		return move, false, res, nil
	}
	return res.BestMoves[0], true, res, nil
}

// NewCertificate puts a certificate together: the section of the start
// position (the first move, a win, with the cost of the search that found
// it) and the section of the position after it (each class of replies, a
// loss, with its winning third move).
func NewCertificate(first polyomino.Move, res polyomino.Result, elapsed time.Duration, replies Section) (*File, error) {
	f, sum, err := winProof(nil, first, replies)
	if err != nil {
		return nil, err
	}
	f.Comments = []string{
		" Pentominoes 8x8 (12 pentominoes, common pool, normal play) is a first-player win.",
		fmt.Sprintf(" Certificate: the first move, found by search (%d nodes, %.0f s), and for each of the", res.Nodes, elapsed.Seconds()),
		fmt.Sprintf(" %d classes of replies (%d replies) a winning third move (%d nodes, %.0f s of searches).", len(replies.Lines), sum.count, sum.nodes, sum.took.Seconds()),
		" Lines: <move> <class size> win|loss [<winning reply>]; see package engine/book.",
	}
	return f, nil
}

// NewRefutation is the proof that the last of moves (a winning reply
// found by the search) wins for its maker, in the certificate's form: the
// section of the position before it names it as a win, the section of the
// position after it lists every class of moves there (replies, all
// classified by replies), each a loss with a winning answer. The package
// verify checks it like the certificate, one ply deeper.
func NewRefutation(moves []string, replies Section) (*File, error) {
	if len(moves) < 1 {
		return nil, fmt.Errorf("a refutation needs the moves up to the winning one")
	}
	root := moves[:len(moves)-1]
	win, err := polyomino.ParseMove(moves[len(moves)-1])
	if err != nil {
		return nil, err
	}
	f, sum, err := winProof(root, win, replies)
	if err != nil {
		return nil, err
	}
	f.Comments = []string{
		fmt.Sprintf(" Pentominoes 8x8: after %q, %s wins for the player who makes it.", positionName(root), win),
		fmt.Sprintf(" Proof: each of the %d classes of replies to it (%d moves) loses, with the winning answer found", len(replies.Lines), sum.count),
		fmt.Sprintf(" by search (%d nodes, %.0f s of searches). Written by gamesolver book build --what refutation;", sum.nodes, sum.took.Seconds()),
		" checked by gamesolver book verify --file (package engine/verify). Lines: see package engine/book.",
	}
	return f, nil
}

// proofSums are the costs and class sizes of a proof's reply lines.
type proofSums struct {
	nodes int64
	took  time.Duration
	count int
}

// winProof puts together the two sections of a proof that win wins after
// root (without comments): the position before it, with win as its one
// line, and replies, which must classify every class of moves after win,
// each a loss with an answer (costs left out: the proof stays small).
func winProof(root []string, win polyomino.Move, replies Section) (*File, proofSums, error) {
	var sum proofSums
	before, err := PositionAfter(root)
	if err != nil {
		return nil, sum, err
	}
	after, err := before.Play(win)
	if err != nil {
		return nil, sum, err
	}
	if n := len(after.SymmetryClasses()); len(replies.Lines) != n {
		return nil, sum, fmt.Errorf("%d reply classes classified, the position has %d", len(replies.Lines), n)
	}
	sec := Section{Moves: replies.Moves}
	for _, l := range replies.Lines {
		if l.Wins || l.Reply == "" {
			return nil, sum, fmt.Errorf("reply %s: %w: no winning answer", l.Move, ErrRefuted)
		}
		sum.nodes += l.Nodes
		sum.took += l.Elapsed
		sum.count += l.Class
		l.Nodes, l.Elapsed = 0, 0
		sec.Lines = append(sec.Lines, l)
	}
	return &File{Sections: []Section{
		{Moves: root, Lines: []Line{{Move: win.String(), Class: classSize(before, win), Wins: true}}},
		sec,
	}}, sum, nil
}

// Classify classifies classes of moves of pos (the position after moves):
// the given indices into pos.Children(), or all of them (nil), every Solve
// sharing the table, Options.Parallel at a time; the lines are in the order
// of the classes. check sees each line as it is found (one call at a time)
// and may stop the work with an error. Options.Known lines are taken as
// they are, before any search, and checked too.
func Classify(ctx context.Context, moves []string, pos *polyomino.Position, classes []int, opts *Options, check func(Line) error) (Section, error) {
	sec := Section{Moves: moves}
	children := pos.Children()
	if classes == nil {
		for i := range children {
			classes = append(classes, i)
		}
	}
	for _, i := range classes {
		if i < 0 || i >= len(children) {
			return sec, fmt.Errorf("class %d: the position has classes 0..%d", i, len(children)-1)
		}
	}
	opts.table() // made once, before the searches share it
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make([]*Line, len(classes))
	replies := map[string]int{} // winning replies found, and how often
	var todo []int              // indices into classes left to search
	done := 0
	for k, c := range classes {
		class := children[c].Moves
		l, ok := opts.Known[class[0].String()]
		if !ok || l.Class != len(class) || opts.Lengths && l.Plies == nil {
			todo = append(todo, k)
			continue
		}
		lines[k] = &l
		done++
		if l.Reply != "" {
			replies[l.Reply]++
		}
		if check != nil {
			if err := check(l); err != nil {
				return collect(sec, lines), err
			}
		}
	}
	if done > 0 {
		opts.logf("%d/%d classes known before, %d to search", done, len(classes), len(todo))
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for range max(opts.Parallel, 1) {
		wg.Go(func() {
			for {
				mu.Lock()
				if next >= len(todo) || first != nil {
					mu.Unlock()
					return
				}
				k := todo[next]
				next++
				o := *opts
				o.prefer = topReplies(replies, opts.PreferReplies)
				mu.Unlock()
				l, err := ClassifyMove(ctx, pos, children[classes[k]].Moves, &o)
				mu.Lock()
				if err == nil {
					lines[k] = &l
					done++
					if l.Reply != "" {
						replies[l.Reply]++
					}
					opts.logf("%d/%d %s %d %s %s: %d nodes, %.2fs", done, len(classes), l.Move, l.Class, l.Outcome(), l.Reply, l.Nodes, l.Elapsed.Seconds())
					if check != nil {
						err = check(l)
					}
				}
				if err != nil && first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return collect(sec, lines), first
}

// collect appends the lines found to sec, in the order of the classes.
func collect(sec Section, lines []*Line) Section {
	for _, l := range lines {
		if l != nil {
			sec.Lines = append(sec.Lines, *l)
		}
	}
	return sec
}

// topReplies are the n replies of counts found most often (ties in
// notation order).
func topReplies(counts map[string]int, n int) []polyomino.Move {
	if n <= 0 || len(counts) == 0 {
		return nil
	}
	names := make([]string, 0, len(counts))
	for r := range counts {
		names = append(names, r)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	var out []polyomino.Move
	for _, r := range names[:min(n, len(names))] {
		if m, err := polyomino.ParseMove(r); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// classSize is the number of moves in the symmetry class of m in pos.
func classSize(pos *polyomino.Position, m polyomino.Move) int {
	for _, c := range pos.SymmetryClasses() {
		for _, x := range c {
			if x.String() == m.String() {
				return len(c)
			}
		}
	}
	return 0
}
