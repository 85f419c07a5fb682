package tiling

import (
	"math/bits"
	"slices"
)

// pollEvery is how many nodes a worker searches between looks at the stop
// flag and the node budget.
const pollEvery = 1 << 12

// state is a point of the search: the window at the first empty cell c
// (see the comment on scan order in build.go) and what is left to place.
type state struct {
	root   int
	c      int
	lo, hi uint64
	avail  uint64 // bit k: kind k has copies left
	remain [maxKinds]int8
	left   int // pieces left to place
	spare  int // open cells that may still stay uncovered
	stack  []int32
}

// advance moves the window from cell c to the first empty cell at or after
// c. The window must hold an empty cell.
func advance(static []uint64, c int, lo, hi uint64) (int, uint64, uint64) {
	for lo == ^uint64(0) {
		lo, hi = hi, static[c+128]
		c += 64
	}
	t := uint(bits.TrailingZeros64(^lo))
	lo = lo>>t | hi<<(64-t)
	hi = hi>>t | static[c+128]<<(64-t)
	return c + int(t), lo, hi
}

// worker searches tasks one after the other. Everything the hot loop
// touches is a field here or in the compiled tables, read only.
type worker struct {
	run     *run
	c       *compiled
	options [][]option
	line    uint

	root   *root
	static []uint64
	avail  uint64
	remain [maxKinds]int8
	left   int
	spare  int
	stack  []int32

	nodes    int64 // searched by this worker
	reported int64 // nodes already added to run.nodes
	pollAt   int64
	stopped  bool

	// Tallies of the current task; see compiled.buildRoots for the
	// arithmetic. countG is the number of classes times |G|.
	countAll, countG int64
	store            bool // keep solutions of this task
	sols             [][]int32
	// others are tilings of this task not first of their class (up to
	// Options.Limit): listed only by a search that ends before their
	// class's first tiling is found (run.result).
	others [][]int32

	label      []int32 // cell -> placement covering it, for symmetry tests
	sortedT    []int32
	sortedImgT []int32
}

func newWorker(r *run) *worker {
	w := &worker{
		run:     r,
		c:       r.c,
		options: r.c.options,
		line:    uint(r.c.line),
		label:   make([]int32, r.c.n),
	}
	for i := range w.label {
		w.label[i] = -1
	}
	return w
}

// load makes the worker's state that of a task.
func (w *worker) load(s *state) {
	w.root = &w.c.roots[s.root]
	w.static = w.root.static
	w.avail = s.avail
	w.remain = s.remain
	w.left = s.left
	w.spare = s.spare
	w.stack = append(w.stack[:0], s.stack...)
	w.countAll, w.countG = 0, 0
	w.sols, w.others = nil, nil
}

// search extends the tiling from the first empty cell c, with at least one
// piece left to place.
func (w *worker) search(c int, lo, hi uint64) {
	w.nodes++
	if w.nodes >= w.pollAt && w.poll() {
		return
	}
	for _, o := range w.options[c<<probeBits|probe(lo, w.line)] {
		if w.avail>>uint(o.kind)&1 == 0 || o.lo&lo|o.hi&hi != 0 {
			continue
		}
		// Few options fit, so the bookkeeping is done per fit.
		w.remain[o.kind]--
		if w.remain[o.kind] == 0 {
			w.avail ^= 1 << uint(o.kind)
		}
		w.left--
		w.stack = append(w.stack, o.id)
		if w.left == 0 {
			w.record()
		} else {
			nc, nlo, nhi := advance(w.static, c, lo|o.lo, hi|o.hi)
			// Most dead ends show in the probe (an empty cell walled
			// in): skip those without a call.
			if (len(w.options[nc<<probeBits|probe(nlo, w.line)]) > 0 && !w.walledIn(nc, nlo)) || w.spare > 0 {
				w.search(nc, nlo, nhi)
			}
		}
		w.stack = w.stack[:len(w.stack)-1]
		w.left++
		if w.remain[o.kind] == 0 {
			w.avail ^= 1 << uint(o.kind)
		}
		w.remain[o.kind]++
		if w.stopped {
			return
		}
	}
	if w.spare > 0 {
		// Leave c uncovered.
		w.spare--
		nc, nlo, nhi := advance(w.static, c, lo|1, hi)
		w.search(nc, nlo, nhi)
		w.spare++
	}
}

// poll reports nodes to the run and tells whether to stop.
func (w *worker) poll() bool {
	w.pollAt = w.nodes + pollEvery
	total := w.run.nodes.Add(w.nodes - w.reported)
	w.reported = w.nodes
	if max := w.run.opts.MaxNodes; max > 0 && total >= max {
		w.run.stop.Store(true)
	}
	if w.run.stop.Load() {
		w.stopped = true
	}
	if w.run.opts.Progress != nil {
		w.run.reportIfDue()
	}
	return w.stopped
}

// record counts the tiling on the stack and keeps it if asked to.
func (w *worker) record() {
	rt := w.root
	mult := int64(len(w.c.syms) / rt.stabSize)
	w.countAll += mult
	fixedBy := int64(1)
	if len(rt.stab) > 0 {
		for _, id := range w.stack {
			for _, i := range w.c.placements[id].cells {
				w.label[i] = id
			}
		}
		for _, g := range rt.stab {
			if w.fixedBy(g) {
				fixedBy++
			}
		}
		for _, id := range w.stack {
			for _, i := range w.c.placements[id].cells {
				w.label[i] = -1 // uncovered cells must not keep old labels
			}
		}
	}
	w.countG += fixedBy * mult
	if !w.store || len(w.sols) >= w.run.opts.Limit {
		return
	}
	if w.run.opts.EveryTiling {
		for _, g := range rt.cosets {
			if len(w.sols) < w.run.opts.Limit {
				w.sols = append(w.sols, w.imageOf(g))
			}
		}
		return
	}
	if fixedBy < int64(rt.stabSize) && !w.firstOfClass() {
		if len(w.others) < w.run.opts.Limit {
			w.others = append(w.others, slices.Clone(w.stack))
		}
		return
	}
	w.sols = append(w.sols, slices.Clone(w.stack))
}

// fixedBy reports whether symmetry g maps the tiling on the stack (whose
// cells are in label) onto itself.
func (w *worker) fixedBy(g int) bool {
	img := w.c.image[g]
	for _, id := range w.stack {
		to := img[id]
		if w.label[w.c.placements[to].cells[0]] != to {
			return false
		}
	}
	return true
}

// firstOfClass reports whether the tiling on the stack, as a sorted list of
// placements, comes first among its images under the root's stabiliser, so
// that one tiling per class is listed.
func (w *worker) firstOfClass() bool {
	w.sortedT = append(w.sortedT[:0], w.stack...)
	slices.Sort(w.sortedT)
	for _, g := range w.root.stab {
		w.sortedImgT = w.sortedImgT[:0]
		for _, id := range w.stack {
			w.sortedImgT = append(w.sortedImgT, w.c.image[g][id])
		}
		slices.Sort(w.sortedImgT)
		if slices.Compare(w.sortedImgT, w.sortedT) < 0 {
			return false
		}
	}
	return true
}

// imageOf returns the tiling on the stack mapped by symmetry g.
func (w *worker) imageOf(g int) []int32 {
	if w.c.image == nil {
		return slices.Clone(w.stack)
	}
	out := make([]int32, len(w.stack))
	for i, id := range w.stack {
		out[i] = w.c.image[g][id]
	}
	return out
}

// walledIn reports whether the window holds an empty cell whose four
// neighbours are filled.
func (w *worker) walledIn(c int, lo uint64) bool {
	m := &w.c.edges[c%w.c.line]
	s := w.line
	empty := ^lo
	iso := empty & (lo<<1 | m.first) & (lo>>1 | m.last) & (lo<<s | (1<<s - 1)) & (lo >> s)
	return iso != 0
}
