package tiling

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Problem is a tiling puzzle: cover the open cells of Region with Pieces.
type Problem struct {
	Region Region
	// Pieces to place, each exactly as often as listed; empty means
	// DefaultPieces (the twelve pentominoes).
	Pieces Pieces
	// Multiset allows a piece to be listed more than once. Without it a
	// repeated piece is an error (ErrRepeatedPiece), as the piece sets
	// hold each piece once.
	Multiset bool
	// AllowLeftover lets the pieces cover fewer cells than are open; the
	// cells left over stay '.' in the solutions. Every piece is still
	// placed.
	AllowLeftover bool
}

// Validate reports what makes the problem unsolvable as posed: an empty
// region, pieces of mixed orders, a repeated piece without Multiset, or
// pieces whose area does not match the open cells.
func (p Problem) Validate() error {
	r := p.Region
	if r.width == 0 || r.height == 0 {
		return fmt.Errorf("%w: the region is empty (build it with ParseRegion or ParseBoard)", ErrBadRegion)
	}
	pieces := p.Pieces
	if len(pieces) == 0 {
		pieces = DefaultPieces()
	}
	if len(pieces) > MaxPieces {
		return fmt.Errorf("%w: %d pieces listed, at most %d", ErrBadPieces, len(pieces), MaxPieces)
	}
	times := map[*polyomino.Piece]int{}
	for i, pc := range pieces {
		if pc == nil || pc.Size() == 0 {
			return fmt.Errorf("%w: piece %d is missing", ErrBadPieces, i+1)
		}
		if pc.Size() != pieces[0].Size() {
			return fmt.Errorf("%w: %s has %d cells but %s has %d; list pieces of one order",
				ErrBadPieces, pieces[0].Name, pieces[0].Size(), pc.Name, pc.Size())
		}
		times[pc]++
		if times[pc] == 2 && !p.Multiset {
			return fmt.Errorf("%w: %s is listed more than once; each piece exists once unless multisets are allowed",
				ErrRepeatedPiece, pc.Name)
		}
	}
	open, need := r.Area(), pieces.Area()
	switch blocked := r.width*r.height - open; {
	case need > open:
		// Unblocking helps only as far as there are blocked cells.
		fix := "remove pieces or use a larger region"
		switch {
		case blocked >= need-open:
			fix = "remove pieces or unblock " + cells(need-open)
		case blocked > 0:
			fix = fmt.Sprintf("remove pieces or use a larger region (unblocking all %s would not be enough)", cells(blocked))
		}
		return fmt.Errorf("%w: %s %s but the region has only %s open; %s",
			ErrAreaMismatch, thePieces(len(pieces)), coverCells(len(pieces), need), cells(open), fix)
	case need < open && !p.AllowLeftover:
		return fmt.Errorf("%w: the region has %s open but %s %s; block %s, or allow leftover cells",
			ErrAreaMismatch, cells(open), thePieces(len(pieces)), coverCells(len(pieces), need), cells(open-need))
	}
	return nil
}

// thePieces is "the piece" or "the n pieces".
func thePieces(n int) string {
	if n == 1 {
		return "the piece"
	}
	return fmt.Sprintf("the %d pieces", n)
}

// coverCells is "covers n cells" for one piece, "cover n cells" for more.
func coverCells(pieces, n int) string {
	if pieces == 1 {
		return "covers " + cells(n)
	}
	return "cover " + cells(n)
}

func cells(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}

// Options tune Solve. The zero value counts with every core, without a
// budget, and lists no solutions.
type Options struct {
	// Limit is the most solutions listed in Result.Solutions.
	Limit int
	// EveryTiling lists every tiling, symmetric images included, instead
	// of one tiling per class of tilings equal up to symmetry.
	EveryTiling bool
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// MaxNodes stops the search after about this many nodes (0: no limit).
	MaxNodes int64
	// Budget stops the search after this long (0: no limit). A deadline
	// on the context does the same.
	Budget time.Duration
	// Parts, when more than 0, cuts the search into that many parts, the
	// same whatever the number of workers, and Solve searches part Part
	// (0..Parts-1) only: the parts' CountAll and Fixed add up to the
	// whole search's (their Nodes to a search split as they are), and
	// their solutions, listed part after part, are the whole search's in
	// its order (a job's units: a part that stops loses only its own
	// work). Parts of one search must all be of one PartsVersion.
	Parts, Part int
	// Progress, if set, is called after each subtree of the search is
	// done, and every progressEvery (200 ms) while a long subtree runs;
	// never concurrently, from the goroutines running the search. It
	// should return quickly.
	Progress func(Progress)
}

// Progress is a snapshot of a running Solve.
type Progress struct {
	Done, Total int // subtrees searched, and in all
	// Count and CountAll are as in Result, for the subtrees done.
	Count, CountAll int64
	Nodes           int64
	Elapsed         time.Duration
}

// Result is what Solve found.
type Result struct {
	// Count is the number of tilings distinct up to the region's
	// symmetries; CountAll the number of all tilings.
	Count, CountAll int64
	// Solutions are up to Options.Limit tilings, each as rows top first,
	// every cell the Symbol of the piece covering it, '#' for a blocked
	// cell and '.' for an open cell left uncovered. Without
	// Options.EveryTiling, they are one per class, in search order: each
	// class's first tiling in the search's order, and when the search
	// stopped early and these are fewer than the limit, one tiling each of
	// the other classes it found (their first tiling was not reached).
	Solutions [][]string
	// Placements are the same tilings piece by piece (the rows cannot
	// tell apart two copies of a piece that touch).
	Placements [][]Placement
	// Complete is false when the search stopped early (context, Budget
	// or MaxNodes); the counts are then those found so far.
	Complete bool
	// Fixed is Burnside's sum: over every tiling, the symmetries of the
	// region that map it onto itself. Count is Fixed / Symmetries; the
	// Fixed of parts (Options.Parts) add up, their Counts do not.
	Fixed int64
	// Symmetries is the number of symmetries of the region (1, 2, 4 or 8).
	Symmetries int
	// Subtrees is the number of parts the search was split into.
	Subtrees int
	// Nodes counts the partial tilings the search visited.
	Nodes   int64
	Elapsed time.Duration
}

// Placement is one piece of a tiling.
type Placement struct {
	Piece string
	Cells []polyomino.Cell // in reading order
}

// MarshalJSON writes the placement as its move notation, a string (a
// sixth of the size of its fields: cached answers and job results keep
// up to a thousand tilings).
func (p Placement) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// UnmarshalJSON reads a placement written by MarshalJSON.
func (p *Placement) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		// Written before the move notation: {"Piece":..,"Cells":[{"X":..,"Y":..}]}
		// (cached answers, job results and part results of earlier versions).
		type fields Placement // no methods: the default decoding
		var f fields
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		if f.Piece == "" || len(f.Cells) == 0 {
			return fmt.Errorf("placement %s: expected a piece and its cells", b)
		}
		// Checked as its move notation is (cells on a board, a name
		// without separators).
		moves, err := json.Marshal(Placement(f).String())
		if err != nil {
			return err
		}
		return p.UnmarshalJSON(moves)
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	piece, cells, ok := strings.Cut(s, ":")
	if !ok || piece == "" {
		return fmt.Errorf("placement %q: expected piece:cells", s)
	}
	out := Placement{Piece: piece}
	for _, c := range strings.Split(cells, ",") {
		cell, err := polyomino.ParseCell(c)
		if err != nil {
			return fmt.Errorf("placement %q: %w", s, err)
		}
		out.Cells = append(out.Cells, cell)
	}
	*p = out
	return nil
}

// String writes the placement in move notation, e.g. "L:a1,a2,a3,a4,b4".
func (p Placement) String() string {
	var b strings.Builder
	b.WriteString(p.Piece)
	for i, c := range p.Cells {
		if i == 0 {
			b.WriteByte(':')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(c.String())
	}
	return b.String()
}

// The search is cut into about subtreesPerWorker parts per worker, and at
// least minSubtrees, so that workers stay busy to the end and progress
// moves in small steps.
const (
	minSubtrees       = 128
	subtreesPerWorker = 64
)

// Solve counts the tilings of the problem and lists up to opts.Limit of
// them. It stops early, with Complete false and the counts so far, when
// ctx is done, opts.Budget has passed or opts.MaxNodes were searched;
// that is not an error. Errors are only for bad problems (see
// Problem.Validate). The results, solutions included, do not depend on
// opts.Workers.
func Solve(ctx context.Context, p Problem, opts Options) (Result, error) {
	start := time.Now()
	c, err := compile(p)
	if err != nil {
		return Result{}, err
	}
	if opts.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Budget)
		defer cancel()
	}
	opts.Limit = max(opts.Limit, 0)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opts.Parts < 0 || opts.Parts > 0 && (opts.Part < 0 || opts.Part >= opts.Parts) {
		return Result{}, fmt.Errorf("part %d of %d parts: expected 0 <= part < parts", opts.Part, opts.Parts)
	}
	want := max(minSubtrees, subtreesPerWorker*workers)
	if opts.Parts > 0 {
		want = max(partSubtrees, opts.Parts)
	}
	tasks, order, splitNodes := c.split(want)
	if opts.Parts > 0 {
		tasks, order = partOf(tasks, order, opts.Part, opts.Parts)
		if opts.Part > 0 {
			splitNodes = 0 // the first part counts the split
		}
	}
	workers = max(1, min(workers, len(tasks)))
	r := &run{c: c, opts: opts, tasks: tasks, order: order, start: start,
		finished: make([]bool, len(tasks)), sols: make([][][]int32, len(tasks)), others: make([][][]int32, len(tasks))}
	r.nodes.Store(splitNodes)
	r.cutoff.Store(int64(len(tasks)))
	if opts.Limit == 0 {
		r.cutoff.Store(0)
	}

	if ctx.Err() != nil {
		r.stop.Store(true)
	} else if ctx.Done() != nil {
		finished := make(chan struct{})
		defer close(finished)
		go func() {
			select {
			case <-ctx.Done():
				r.stop.Store(true)
			case <-finished:
			}
		}()
	}

	if workers == 1 {
		r.work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(r.work)
		}
		wg.Wait()
	}
	return r.result(), nil
}

// partSubtrees is how many subtrees a search cut into parts is split into
// (at least one a part): a constant, so that a part is the same part on
// every worker.
const partSubtrees = 512

// PartsVersion names how Options.Parts cuts a search (partSubtrees and
// split): parts of two versions do not add up. Raise it with any change
// to either.
const PartsVersion = 1

// partOf is part k of n of the subtrees tasks searched in order: a run of
// consecutive subtrees (the search's order within the part), renumbered.
func partOf(tasks []state, order []int32, k, n int) ([]state, []int32) {
	lo, hi := len(tasks)*k/n, len(tasks)*(k+1)/n
	var o []int32
	for _, i := range order {
		if int(i) >= lo && int(i) < hi {
			o = append(o, i-int32(lo))
		}
	}
	return tasks[lo:hi], o
}

// run is one call of Solve: the tasks and what the workers found.
type run struct {
	c     *compiled
	opts  Options
	tasks []state
	order []int32 // the order to search the tasks in
	start time.Time

	next   atomic.Int64 // next task to hand out
	stop   atomic.Bool
	nodes  atomic.Int64
	cutoff atomic.Int64 // tasks from this index on need not keep solutions

	lastReport atomic.Int64 // time of the last progress report, from start

	mu               sync.Mutex
	done             int
	finished         []bool
	sols             [][][]int32 // by task
	others           [][][]int32 // by task: worker.others, at most Limit in all
	nOthers          int
	prefix           int // tasks [0, prefix) are finished
	prefixSols       int // solutions they keep
	countAll, countG int64
}

// work runs tasks until there are none left or the run stops.
func (r *run) work() {
	w := newWorker(r)
	for !r.stop.Load() {
		j := int(r.next.Add(1) - 1)
		if j >= len(r.tasks) {
			break
		}
		i := int(r.order[j])
		t := &r.tasks[i]
		w.load(t)
		w.store = int64(i) < r.cutoff.Load()
		if w.left == 0 {
			w.nodes++
			w.record()
		} else {
			w.search(t.c, t.lo, t.hi)
		}
		r.finish(i, w)
		if w.stopped {
			break
		}
	}
	r.nodes.Add(w.nodes - w.reported)
	w.reported = w.nodes
}

// finish adds a task's tallies to the run and reports progress.
func (r *run) finish(i int, w *worker) {
	r.nodes.Add(w.nodes - w.reported)
	w.reported = w.nodes
	r.mu.Lock()
	defer r.mu.Unlock()
	r.countAll += w.countAll
	r.countG += w.countG
	if int64(i) < r.cutoff.Load() {
		r.sols[i] = w.sols
		if r.nOthers < r.opts.Limit {
			r.others[i] = w.others
			r.nOthers += len(w.others)
		}
	}
	if w.stopped {
		return
	}
	r.finished[i] = true
	r.done++
	for r.prefix < len(r.tasks) && r.finished[r.prefix] {
		r.prefixSols += len(r.sols[r.prefix])
		r.prefix++
		if r.prefixSols >= r.opts.Limit && int64(r.prefix) < r.cutoff.Load() {
			r.cutoff.Store(int64(r.prefix))
			for j := r.prefix; j < len(r.sols); j++ {
				r.sols[j], r.others[j] = nil, nil
			}
		}
	}
	if r.opts.Progress != nil {
		r.report()
	}
}

// progressEvery is the longest time between progress reports.
const progressEvery = 200 * time.Millisecond

// report calls Options.Progress; r.mu must be held.
func (r *run) report() {
	elapsed := time.Since(r.start)
	r.lastReport.Store(int64(elapsed))
	r.opts.Progress(Progress{
		Done: r.done, Total: len(r.tasks),
		Count: r.countG / int64(len(r.c.syms)), CountAll: r.countAll,
		Nodes: r.nodes.Load(), Elapsed: elapsed,
	})
}

// reportIfDue reports progress when none was reported for progressEvery,
// unless a report is under way.
func (r *run) reportIfDue() {
	if time.Since(r.start)-time.Duration(r.lastReport.Load()) < progressEvery || !r.mu.TryLock() {
		return
	}
	defer r.mu.Unlock()
	if time.Since(r.start)-time.Duration(r.lastReport.Load()) >= progressEvery {
		r.report()
	}
}

// result assembles the Result once the workers are done.
func (r *run) result() Result {
	res := Result{
		Count:      r.countG / int64(len(r.c.syms)),
		CountAll:   r.countAll,
		Fixed:      r.countG,
		Complete:   r.done == len(r.tasks),
		Symmetries: len(r.c.syms),
		Subtrees:   len(r.tasks),
		Nodes:      r.nodes.Load(),
	}
	list := func(ids []int32) {
		res.Solutions = append(res.Solutions, r.c.rows(ids))
		res.Placements = append(res.Placements, r.c.pieceList(ids))
	}
	for _, sols := range r.sols {
		for _, ids := range sols {
			if len(res.Solutions) >= r.opts.Limit {
				break
			}
			list(ids)
		}
	}
	if !res.Complete && len(res.Solutions) < r.opts.Limit && !r.opts.EveryTiling {
		// A search cut short may not have reached the first tiling of
		// the classes it found (their images under a part's symmetries
		// come later in the search): one tiling each of those classes
		// stands for it (a review saw 19,738 classes found, none listed).
		listed := map[string]bool{}
		for i, sols := range r.sols {
			for _, ids := range sols {
				listed[r.c.classKey(&r.c.roots[r.tasks[i].root], ids)] = true
			}
		}
		for i, others := range r.others {
			for _, ids := range others {
				k := r.c.classKey(&r.c.roots[r.tasks[i].root], ids)
				if len(res.Solutions) >= r.opts.Limit || listed[k] {
					continue
				}
				listed[k] = true
				list(ids)
			}
		}
	}
	res.Elapsed = time.Since(r.start)
	return res
}

// classKey names the class of a tiling of root rt's part: its placements
// sorted, the least of its images under rt's symmetries (the only ones
// that map the part's tilings onto each other).
func (c *compiled) classKey(rt *root, ids []int32) string {
	best := slices.Sorted(slices.Values(ids))
	img := make([]int32, len(ids))
	for _, g := range rt.stab {
		for i, id := range ids {
			img[i] = c.image[g][id]
		}
		slices.Sort(img)
		if slices.Compare(img, best) < 0 {
			best = slices.Clone(img)
		}
	}
	return fmt.Sprint(best)
}

// rows draws a tiling.
func (c *compiled) rows(ids []int32) []string {
	grid := make([][]byte, c.region.height)
	for y, row := range c.region.Rows() {
		grid[y] = []byte(row)
	}
	for _, id := range ids {
		p := &c.placements[id]
		sym := Symbol(c.kinds[p.kind])
		for _, i := range p.cells {
			xy := c.cellXY[i]
			grid[xy.Y][xy.X] = sym
		}
	}
	out := make([]string, len(grid))
	for y, row := range grid {
		out[y] = string(row)
	}
	return out
}

// pieceList lists a tiling's pieces in reading order of their first cells.
func (c *compiled) pieceList(ids []int32) []Placement {
	out := make([]Placement, len(ids))
	for j, id := range ids {
		p := &c.placements[id]
		cells := make([]polyomino.Cell, len(p.cells))
		for i, ci := range p.cells {
			cells[i] = c.cellXY[ci]
		}
		slices.SortFunc(cells, cellOrder)
		out[j] = Placement{Piece: c.kinds[p.kind].Name, Cells: cells}
	}
	slices.SortFunc(out, func(a, b Placement) int { return cellOrder(a.Cells[0], b.Cells[0]) })
	return out
}

// cellOrder is reading order: by row, then column.
func cellOrder(a, b polyomino.Cell) int {
	if a.Y != b.Y {
		return a.Y - b.Y
	}
	return a.X - b.X
}

// rootState is the state at the top of root i.
func (c *compiled) rootState(i int) state {
	rt := &c.roots[i]
	s := state{root: i, left: c.pieces, spare: c.spare}
	for k, n := range c.counts {
		s.remain[k] = int8(n)
		s.avail |= 1 << k
	}
	for _, id := range rt.placed {
		k := c.placements[id].kind
		s.remain[k]--
		if s.remain[k] == 0 {
			s.avail &^= 1 << k
		}
		s.left--
		s.stack = append(s.stack, id)
	}
	if s.left > 0 {
		s.c, s.lo, s.hi = advance(rt.static, 0, rt.static[0], rt.static[64])
	}
	return s
}

// children lists the states one move below s, in the order the search
// visits them: the same moves as worker.search.
func (c *compiled) children(s *state) []state {
	static := c.roots[s.root].static
	var out []state
	child := func(lo, hi uint64) state {
		ch := *s
		ch.stack = slices.Clip(s.stack)
		if ch.left > 0 {
			ch.c, ch.lo, ch.hi = advance(static, s.c, lo, hi)
		}
		return ch
	}
	for _, o := range c.options[s.c<<probeBits|probe(s.lo, uint(c.line))] {
		bit := uint64(1) << uint(o.kind)
		if s.avail&bit == 0 || o.lo&s.lo|o.hi&s.hi != 0 {
			continue
		}
		ch := *s
		ch.remain[o.kind]--
		if ch.remain[o.kind] == 0 {
			ch.avail &^= bit
		}
		ch.left--
		ch.stack = append(slices.Clip(s.stack), o.id)
		if ch.left > 0 {
			ch.c, ch.lo, ch.hi = advance(static, s.c, s.lo|o.lo, s.hi|o.hi)
		}
		out = append(out, ch)
	}
	if s.spare > 0 {
		ch := child(s.lo|1, s.hi)
		ch.spare--
		out = append(out, ch)
	}
	return out
}

// split cuts the search into about want subtrees (when it is that big),
// listed in the order the search visits them. It expands the tree level by
// level, the last level only as far as needed. It also returns the order
// in which to search the subtrees, shallow (so larger) ones first, so that
// no big one is left for the end, and the number of nodes it expanded.
func (c *compiled) split(want int) (tasks []state, order []int32, nodes int64) {
	var depth []int
	for i := range c.roots {
		tasks = append(tasks, c.rootState(i))
		depth = append(depth, 0)
	}
	for level := 0; len(tasks) < want && level < maxSplitDepth; level++ {
		var next []state
		var nextDepth []int
		for i := range tasks {
			t := &tasks[i]
			if t.left == 0 || depth[i] != level || len(next)+len(tasks)-i >= want {
				next = append(next, *t)
				nextDepth = append(nextDepth, depth[i])
				continue
			}
			nodes++
			for _, ch := range c.children(t) {
				next = append(next, ch)
				nextDepth = append(nextDepth, level+1)
			}
		}
		tasks, depth = next, nextDepth
	}
	order = make([]int32, len(tasks))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return depth[a] - depth[b] })
	return tasks, order, nodes
}

// maxSplitDepth bounds how deep split looks for subtrees.
const maxSplitDepth = 8
