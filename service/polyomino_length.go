package service

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Game lengths (plies) of polyomino answers: the length search after a
// proof, and the order of the best moves it gives.

// The game-length search after a proof (plies) of a request may take
// lengthShare times the proof's time, at least Searcher.MinLengthTime
// (default lengthMin), within what is left of the budget (less
// lengthMargin), and at most lengthMaxNodes nodes. In a job's unit, whose
// proofs are the long ones, it may take a quarter of the proof's time
// (lengthJobShare), so that plies cost a job little, and at least
// Searcher.MinLengthTime (default lengthJobMin: a unit's first-win proof
// may take microseconds).
const (
	// solveTableMB: the transposition table of a request's or a unit's
	// proof, kept for its length search (Solve's own default size).
	solveTableMB   = 64
	lengthShare    = 3
	lengthJobShare = 0.25
	lengthJobMin   = 50 * time.Millisecond
	lengthMin      = 200 * time.Millisecond
	lengthMargin   = 5 * time.Millisecond
	// allMovesLengthDiv: with all_moves the length search may take what
	// is left of the budget divided by this.
	allMovesLengthDiv = 2
	lengthMaxNodes    = 50_000_000
)

// withLength adds to a proven answer how many plies the game lasts under
// perfect play (normal play only), when polyomino.Length proves it within
// its share of the budget, and then, with all moves, how many it lasts
// after each move, as far as the share goes; its nodes and time count in
// the answer's. It returns the length search's fastest win, when it found
// one (polyomino.LengthResult.Fastest), in the position's frame.
// A job's unit passes share lengthJobShare and least
// Searcher.MinLengthTime; a request lengthShare and minLengthTime.
func (s *Searcher) withLength(ctx context.Context, a *PolyominoAnswer, pos *polyomino.Position, res polyomino.Result, tt *polyomino.Table, share float64, least time.Duration) (fastest *polyomino.Move) {
	if !res.Proven || pos.Game().Config().EndRule != polyomino.NormalPlay {
		return nil
	}
	d := lengthTime(share, res.Elapsed, least)
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl) - lengthMargin
		if len(res.Moves) > 0 {
			// Every move's plies are asked for (all_moves): up to half of
			// what is left of the budget.
			d = max(d, left/allMovesLengthDiv)
		}
		d = min(d, left)
	}
	if d <= 0 {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	defer func() { a.ElapsedNs += int64(time.Since(start)) }()
	// One search answers the position's length, then its moves': what
	// the first learnt serves the others.
	lengths := polyomino.NewLengths(lctx, pos, polyomino.LengthOptions{MaxNodes: lengthMaxNodes, Table: tt})
	defer lengths.Close()
	l := lengths.Length(res.Outcome)
	a.Nodes += l.Nodes
	if !l.Proven {
		a.LengthTriedNs = max(a.LengthTriedNs, int64(d))
		return nil
	}
	n := l.Plies
	a.Plies = &n
	// A best move first: with all_moves too, so that the move perfect
	// play chooses leads when the moves' own lengths are not all found.
	// The length search's own fastest win when it is one of them, else
	// one of them that a search finds as fast.
	var best string
	if f := l.Fastest; f != nil {
		if c := pos.Frame().ToCanonical(*f).String(); slices.Contains(a.BestMoves, c) {
			best = f.String()
			withFirst(a, PolyominoAnswer{PerfectFirst: true, BestMoves: []string{c}})
		}
	}
	if best == "" {
		best = bestFirst(a, lengths, res)
	}
	if len(res.Moves) == 0 || len(res.Moves) != len(a.Moves) {
		return l.Fastest
	}
	// One search per symmetry class of moves: its members last as long.
	// A class with a member's plies known already (a cached answer being
	// completed) lends them to the others, unsearched.
	classOf := map[string]int{}
	for c, ms := range pos.SymmetryClasses() {
		for _, m := range ms {
			classOf[m.String()] = c
		}
	}
	knownIn := map[int]int{} // class -> index of a move with plies
	for i, mr := range res.Moves {
		if c, ok := classOf[mr.Move.String()]; ok && a.Moves[i].Plies != nil {
			knownIn[c] = i
		}
	}
	repOf := map[int]int{} // class -> index of its first move in reps
	var reps []polyomino.MoveResult
	for _, mr := range res.Moves {
		c, ok := classOf[mr.Move.String()]
		_, known := knownIn[c]
		if _, seen := repOf[c]; ok && !seen && !known {
			repOf[c] = len(reps)
			reps = append(reps, mr)
		}
	}
	lens := lengths.MoveLengths(reps)
	for _, ml := range lens {
		a.Nodes += ml.Nodes
	}
	for i, mr := range res.Moves {
		c, ok := classOf[mr.Move.String()]
		if !ok || a.Moves[i].Plies != nil {
			continue
		}
		if k, known := knownIn[c]; known {
			if res.Moves[k].Outcome == mr.Outcome {
				n := *a.Moves[k].Plies
				a.Moves[i].Plies = &n
			}
		} else if ml := lens[repOf[c]]; ml.Proven && reps[repOf[c]].Outcome == mr.Outcome {
			n := ml.Plies
			a.Moves[i].Plies = &n
		}
		if a.Moves[i].Plies == nil && mr.Move.String() == best {
			n := *a.Plies - 1
			a.Moves[i].Plies = &n
		}
	}
	fastestFirst(a)
	return l.Fastest
}

// lengthTime is the time a length search may take after a proof of
// elapsed: share times it, at least least (before the budget's cap).
func lengthTime(share float64, elapsed, least time.Duration) time.Duration {
	return max(time.Duration(share*float64(elapsed)), least)
}

// minLengthTime is a request's least length-search time:
// Searcher.MinLengthTime, or lengthMin when unset.
func (s *Searcher) minLengthTime() time.Duration {
	if s.MinLengthTime > 0 {
		return s.MinLengthTime
	}
	return lengthMin
}

// bestFirst puts first among the best moves of a proven answer with its
// plies a move perfect play chooses, when the length search finds one
// within what is left of its time and nodes: a fastest win
// (Lengths.FastestWin) or, the position lost, a slowest loss
// (Lengths.Slowest, every move being a best one); the others keep their
// order. It returns that move (in the position's frame), or "" if none.
// res.BestMoves[i] must be a.BestMoves[i] (in the position's frame).
func bestFirst(a *PolyominoAnswer, lengths *polyomino.Lengths, res polyomino.Result) string {
	if a.Plies == nil || len(res.BestMoves) == 0 || len(res.BestMoves) != len(a.BestMoves) {
		return ""
	}
	if len(res.BestMoves) == 1 && res.BestComplete {
		a.PerfectFirst = true // the only best move
		return res.BestMoves[0].String()
	}
	find := lengths.FastestWin
	switch res.Outcome {
	case polyomino.Win:
	case polyomino.Loss:
		find = lengths.Slowest
	default:
		return ""
	}
	// (With one best move of a first-win search, whether it is perfect
	// play's too.)
	i, nodes := find(res.BestMoves, *a.Plies)
	a.Nodes += nodes
	if i < 0 {
		return ""
	}
	a.PerfectFirst = true
	if i > 0 {
		best := append([]string{a.BestMoves[i]}, a.BestMoves[:i]...)
		a.BestMoves = append(best, a.BestMoves[i+1:]...)
	}
	return res.BestMoves[i].String()
}

// fastestFirst orders the moves of an answer as perfect play prefers them
// (the Teeko convention): among proven wins the fastest first, among
// proven losses the slowest first; the best moves (the wins, or for a lost
// position every move) follow the same order. A move without plies (its
// length search ran out of time) counts as a long game, as it most often
// is (a short one is found fast): after the wins of known length, before
// the losses of known length (a review found such losses lasting 7 plies
// listed after losses in 5), but after the slowest losses of a lost
// position whose plies are known (no loss lasts longer).
func fastestFirst(a *PolyominoAnswer) {
	var bound *int // a lost position's plies
	if a.Outcome == string(polyomino.Loss) {
		bound = a.Plies
	}
	key := func(m PolyominoMove) int {
		return lengthKey(m.Outcome == string(polyomino.Win), m.Plies, bound)
	}
	for i := 0; i < len(a.Moves); {
		j := i + 1
		for j < len(a.Moves) && a.Moves[j].Proven == a.Moves[i].Proven && a.Moves[j].Outcome == a.Moves[i].Outcome {
			j++
		}
		if a.Moves[i].Proven {
			run := a.Moves[i:j]
			sort.SliceStable(run, func(x, y int) bool { return key(run[x]) < key(run[y]) })
		}
		i = j
	}
	rank := map[string]int{}
	for i, m := range a.Moves {
		rank[m.Move] = i
	}
	sort.SliceStable(a.BestMoves, func(x, y int) bool { return rank[a.BestMoves[x]] < rank[a.BestMoves[y]] })
}

// lengthKey orders moves of one proven outcome by their plies as perfect
// play prefers them: wins (win) the fastest first, losses the slowest
// first, a move without plies as the longest game; when a lost position
// lasts bound plies (nil: unknown), no loss lasts longer than bound - 1,
// so one without plies comes right after those that last that long.
func lengthKey(win bool, plies, bound *int) int {
	switch {
	case plies == nil && win:
		return math.MaxInt
	case plies == nil && bound != nil:
		return -2*(*bound-1) + 1
	case plies == nil:
		return math.MinInt
	case win:
		return 2 * *plies
	default:
		return -2 * *plies
	}
}
