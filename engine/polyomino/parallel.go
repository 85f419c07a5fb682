package polyomino

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// Parallel search under normal play. A root move wins when every reply of
// the opponent loses, so the replies of the root moves are the units of
// work: the workers take (root move, reply) pairs in the order of the root
// moves (best first) and of the replies (strongest first), sharing the
// transposition table. The first reply found winning refutes its root move
// and cancels the other searches of that move. With Options.FirstWin the
// whole search ends when a root move is proven; a worker that runs out of
// replies of the current root move starts on the next one, which is
// wasted only if the current one then wins.

// rootTask is the state of one root move in the parallel search.
type rootTask struct {
	rm       *rootMove
	child    []uint64 // state after the root move
	replies  []int    // opponent vertices, strongest first
	next     int      // next reply to hand out
	running  int      // replies being searched
	expanded bool
	decided  bool
	cancel   atomic.Bool
	runs     map[int]*replyRun // replies being searched
}

// replyRun is a reply being searched, by its worker and maybe a helper.
type replyRun struct {
	reply   int
	helpers int
	done    bool
	cancel  atomic.Bool
}

// maxRefuters is the number of refuting replies the root search keeps.
const maxRefuters = 64

// A reply near a refuter shares all cells but one with one of the
// nearRefuters latest refuters: refuters come in families (N:g4,g5,g6,h6,h7,
// Y:g4,g5,g6,h6,g7, P:g4,g5,h5,g6,h6 against the long-L's third moves), and
// a reply of the family is tried after the known refuters, before the rest.
// (Pentominoes: 4 shared cells measured best, against 3 and 2.)
const nearRefuters = 8

// promote moves the elements of list that are in first to the front of
// list, in the order of first; the others keep their order.
func promote(list, first []int) {
	front := 0
	for _, x := range first {
		if i := slices.Index(list[front:], x); i >= 0 {
			copy(list[front+1:front+i+1], list[front:front+i])
			list[front] = x
			front++
		}
	}
}

// refutersFirst orders the replies of a root move: the known refuters
// first (latest first), then the replies near one of the nearRefuters
// latest refuters, then the rest, each group in its order.
func refutersFirst(replies, refuters []int, near func(r, x int) bool) {
	promote(replies, refuters)
	front := 0
	for front < len(replies) && slices.Contains(refuters, replies[front]) {
		front++
	}
	var close []int
	for _, r := range replies[front:] {
		for _, x := range refuters[:min(len(refuters), nearRefuters)] {
			if near(r, x) {
				close = append(close, r)
				break
			}
		}
	}
	promote(replies[front:], close)
}

// remember puts x at the front of the most-recent-first list, which keeps
// at most n elements.
func remember(list []int, x, n int) []int {
	if i := slices.Index(list, x); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	list = slices.Insert(list, 0, x)
	return list[:min(len(list), n)]
}

func (s *solver) solveRootParallel(root *cgraph, L []uint64, side int, moves []*rootMove, opts Options) {
	k := root.words
	opp := 1 - side
	tasks := make([]*rootTask, len(moves))
	for i, rm := range moves {
		// A move proven already (Options.Known) is decided.
		tasks[i] = &rootTask{rm: rm, expanded: rm.proven, decided: rm.proven}
	}
	var mu sync.Mutex
	wake := sync.NewCond(&mu)
	finished := false
	cur := 0 // first root move not yet decided
	// refuters are the replies that refuted root moves, latest first: a
	// reply that refutes one root move often refutes the next, and the
	// order by fewest replies tends to try such quiet moves last.
	var refuters []int

	// decided reports a decided root move (under mu).
	decided := func(t *rootTask, refutation *Move) {
		if opts.Decided != nil {
			opts.Decided(t.rm.class, t.rm.value, refutation)
		}
	}
	// known decides a root move whose result the table holds (under mu,
	// or before the workers start).
	known := func(w *worker, t *rootTask) bool {
		if t.child == nil {
			t.child = make([]uint64, k)
			andNotCount(t.child, L, root.adj[t.rm.vertex*k:(t.rm.vertex+1)*k])
		}
		if v, bound, ok := s.tt.probe(w.key(root, t.child, opp)); ok && bound == boundExact {
			t.expanded, t.decided, t.rm.proven, t.rm.value = true, true, true, -v
			decided(t, nil)
			return true
		}
		return false
	}
	// Every root move's result is looked up before any search: a table
	// shared with earlier searches often holds a transposition of one
	// (after the long-L opening, the third move B of reply A leads where
	// the third move A of reply B does), and a win found that way ends a
	// FirstWin search at once, whatever the move's place in the order.
	// (A table made or cleared for this search holds nothing: the look-ups
	// would cost a key of every root move for nothing, tens of
	// milliseconds on the largest boards.)
	if s.tt.warm.Load() {
		probe := &worker{s: s}
		for i, t := range tasks {
			if i&63 == 63 && s.expired() {
				break
			}
			if !t.decided {
				known(probe, t)
			}
		}
	}
	// expand computes the replies of a root move (under mu).
	expand := func(w *worker, t *rootTask) {
		t.expanded = true
		if known(w, t) {
			return
		}
		var order []uint64
		own := root.own[opp]
		for i, word := range t.child {
			word &= own[i]
			for ; word != 0; word &= word - 1 {
				// Ordering the replies of a move on the largest boards
				// takes longer than a short budget: past the deadline,
				// the task stays unexpanded (a partial list of replies
				// must never decide it) and the search stops.
				if len(order)&255 == 255 && s.expired() {
					t.expanded = false
					return
				}
				r := i*64 + bits.TrailingZeros64(word)
				_, mine := andNotCountOwn(t.child, root.adj[r*k:(r+1)*k], root.own[side])
				key := uint64(mine)
				if s.pool {
					andNotCount(w.tmpK(k), t.child, root.adj[r*k:(r+1)*k])
					key |= uint64(playoutK(root, w.tmpK(k), nil)&1) << 16
				}
				order = append(order, key<<32|uint64(r))
			}
		}
		if len(order) == 0 { // the opponent cannot move: the root move wins
			t.decided, t.rm.proven, t.rm.value = true, true, 1
			decided(t, nil)
			return
		}
		slices.Sort(order)
		for _, o := range order {
			t.replies = append(t.replies, int(uint32(o)))
		}
		pls, nearCells := s.game.placements, s.game.set.Order-1
		refutersFirst(t.replies, refuters, func(r, x int) bool {
			return pls[root.place[r]].mask.And(pls[root.place[x]].mask).Count() >= nearCells
		})
	}
	// settle marks decided root moves and moves cur past them (under mu).
	settle := func() {
		for cur < len(tasks) && tasks[cur].decided {
			if opts.FirstWin && !opts.AllMoves && tasks[cur].rm.proven && tasks[cur].rm.value > 0 {
				finished = true
			}
			cur++
		}
		if cur == len(tasks) {
			finished = true
		}
		if opts.FirstWin && !opts.AllMoves {
			for _, t := range tasks {
				if t.decided && t.rm.proven && t.rm.value > 0 {
					finished = true
				}
			}
		}
	}

	var wg sync.WaitGroup
	for range s.workers(opts) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(s)
			gc := make([]uint64, k)
			for {
				mu.Lock()
				var t *rootTask
				var run *replyRun
				helping := false
				reply := -1
			pick:
				for !finished && !s.stop.Load() {
					settle()
					if finished {
						break
					}
					again := false
					for i := cur; i < len(tasks) && t == nil && !again; i++ {
						c := tasks[i]
						if c.decided {
							continue
						}
						if !c.expanded {
							expand(w, c)
							if !c.expanded {
								// Stopped while ordering the replies (the
								// search is stopped): not a wait for
								// work, which a single worker would never
								// be woken from.
								break pick
							}
							if c.decided {
								again = true // settle again
								continue
							}
						}
						if c.next < len(c.replies) {
							t, reply = c, c.replies[c.next]
							c.next++
							c.running++
							run = &replyRun{reply: reply}
							if c.runs == nil {
								c.runs = map[int]*replyRun{}
							}
							c.runs[reply] = run
						}
					}
					if t != nil {
						break
					}
					if again {
						continue
					}
					// Everything is handed out: help a running search that
					// has no helper yet, with another move order; whoever
					// finishes first cancels the other.
					for i := cur; i < len(tasks) && t == nil; i++ {
						c := tasks[i]
						if c.decided {
							continue
						}
						for _, r := range c.runs {
							if !r.done && r.helpers == 0 {
								r.helpers++
								t, run, reply, helping = c, r, r.reply, true
								break
							}
						}
					}
					if t != nil {
						break
					}
					wake.Wait()
				}
				mu.Unlock()
				if t == nil {
					break
				}
				andNotCount(gc, t.child, root.adj[reply*k:(reply+1)*k])
				w.cancel, w.cancel2, w.perturb = &t.cancel, &run.cancel, helping
				r := w.solveBool(root, gc, side, 2)
				w.cancel, w.cancel2, w.perturb = nil, nil, false
				mu.Lock()
				if r != resAbort && !run.done {
					run.done = true
					run.cancel.Store(true) // stop the other searcher, if any
					delete(t.runs, reply)
					t.running--
					switch {
					case t.decided:
					case r == resLoss: // the reply wins for the opponent
						t.decided, t.rm.proven, t.rm.value = true, true, -1
						refuters = remember(refuters, reply, maxRefuters)
						m := s.game.move(root.place[reply])
						decided(t, &m)
						t.cancel.Store(true)
						s.tt.store(w.key(root, t.child, opp), resWin, boundExact, 1<<20)
					case r == resWin && t.next == len(t.replies) && t.running == 0:
						t.decided, t.rm.proven, t.rm.value = true, true, 1
						decided(t, nil)
						s.tt.store(w.key(root, t.child, opp), resLoss, boundExact, 1<<20)
					}
				}
				wake.Broadcast()
				mu.Unlock()
			}
			mu.Lock()
			wake.Broadcast()
			mu.Unlock()
			w.flushCounts()
			w.done()
		}()
	}
	wg.Wait()
}
