package capture

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// refGame is a second, deliberately plain implementation of the rules for
// the tests: a grid of bytes, maps for markers and the pool, every removal
// subset tried for every placement, captures counted edge by edge, the
// history kept as counts of printed positions. It shares nothing with the
// engine but the piece shapes.
type refGame struct {
	w, h   int
	shapes map[byte][]polyomino.Shape // orientations by piece letter
}

type refPos struct {
	g      *refGame
	grid   [][]byte // '.', '#' or a piece letter
	marker map[byte]int
	pool   map[byte]bool
	toMove int
	hist   map[string]int
}

func newRefGame(t testing.TB, cfg Config) *refGame {
	set, err := polyomino.Pieces(cfg.Order)
	if err != nil {
		t.Fatal(err)
	}
	rg := &refGame{w: cfg.Width, h: cfg.Height, shapes: map[byte][]polyomino.Shape{}}
	for _, p := range set.Pieces {
		in := len(cfg.Pieces) == 0
		for _, n := range cfg.Pieces {
			in = in || strings.EqualFold(n, p.Name)
		}
		if in {
			rg.shapes[p.Name[0]] = p.Orientations
		}
	}
	return rg
}

func (p *refPos) key() string {
	var sb strings.Builder
	for _, r := range p.grid {
		sb.Write(r)
		sb.WriteByte('/')
	}
	var ms, ps []string
	for l, m := range p.marker {
		ms = append(ms, fmt.Sprintf("%c%d", l, m))
	}
	for l, in := range p.pool {
		if in {
			ps = append(ps, string(l))
		}
	}
	sort.Strings(ms)
	sort.Strings(ps)
	fmt.Fprintf(&sb, "%v %v %d", ms, ps, p.toMove)
	return sb.String()
}

func (p *refPos) clone() *refPos {
	q := &refPos{g: p.g, marker: map[byte]int{}, pool: map[byte]bool{}, toMove: p.toMove, hist: map[string]int{}}
	for _, r := range p.grid {
		q.grid = append(q.grid, append([]byte(nil), r...))
	}
	for k, v := range p.marker {
		q.marker[k] = v
	}
	for k, v := range p.pool {
		q.pool[k] = v
	}
	for k, v := range p.hist {
		q.hist[k] = v
	}
	return q
}

type refTurn struct {
	remove []byte
	piece  byte
	cells  []polyomino.Cell
}

func (t refTurn) String() string {
	r := append([]byte(nil), t.remove...)
	sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
	var sb strings.Builder
	for _, l := range r {
		fmt.Fprintf(&sb, "~%c ", l)
	}
	c := append([]polyomino.Cell(nil), t.cells...)
	slices.SortFunc(c, polyomino.ReadingOrder)
	sb.WriteByte(t.piece)
	sb.WriteByte(':')
	for i, x := range c {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(x.String())
	}
	return sb.String()
}

// turns lists every legal turn: every pool piece, orientation and offset,
// with every subset of the mover's marked pieces that frees its cells.
func (p *refPos) turns() []refTurn {
	var mine []byte
	for l, m := range p.marker {
		if m == p.toMove {
			mine = append(mine, l)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i] < mine[j] })
	var out []refTurn
	seen := map[string]bool{}
	for piece, in := range p.pool {
		if !in {
			continue
		}
		for _, o := range p.g.shapes[piece] {
			for dy := 0; dy < p.g.h; dy++ {
				for dx := 0; dx < p.g.w; dx++ {
					var cells []polyomino.Cell
					for _, c := range o {
						cells = append(cells, polyomino.Cell{X: c.X + dx, Y: c.Y + dy})
					}
					for sub := 0; sub < 1<<len(mine); sub++ {
						removed := map[byte]bool{}
						var rem []byte
						for i, l := range mine {
							if sub&(1<<i) != 0 {
								removed[l] = true
								rem = append(rem, l)
							}
						}
						ok := true
						for _, c := range cells {
							if c.X >= p.g.w || c.Y >= p.g.h {
								ok = false
								break
							}
							ch := p.grid[c.Y][c.X]
							if ch != '.' && !removed[ch] {
								ok = false
								break
							}
						}
						if !ok {
							continue
						}
						t := refTurn{remove: rem, piece: piece, cells: cells}
						if !seen[t.String()] {
							seen[t.String()] = true
							out = append(out, t)
						}
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// play makes a turn (assumed legal) and records the new position.
func (p *refPos) play(t refTurn) *refPos {
	q := p.clone()
	for _, l := range t.remove {
		for y := range q.grid {
			for x := range q.grid[y] {
				if q.grid[y][x] == l {
					q.grid[y][x] = '.'
				}
			}
		}
		delete(q.marker, l)
		q.pool[l] = true
	}
	for _, c := range t.cells {
		q.grid[c.Y][c.X] = t.piece
	}
	q.pool[t.piece] = false
	shared := map[byte]int{}
	for _, c := range t.cells {
		for _, d := range []polyomino.Cell{{X: 1}, {X: -1}, {Y: 1}, {Y: -1}} {
			x, y := c.X+d.X, c.Y+d.Y
			if x < 0 || y < 0 || x >= q.g.w || y >= q.g.h {
				continue
			}
			if ch := q.grid[y][x]; ch != '.' && ch != '#' && ch != t.piece {
				shared[ch]++
			}
		}
	}
	for l, n := range shared {
		if n >= 3 {
			q.marker[l] = p.toMove
		}
	}
	q.toMove = 1 - p.toMove
	q.hist[q.key()]++
	return q
}

// playString finds the legal turn with this canonical notation.
func (p *refPos) playString(s string) (*refPos, bool) {
	for _, t := range p.turns() {
		if t.String() == s {
			return p.play(t), true
		}
	}
	return nil, false
}

// value is plain minimax: +1 win, 0 draw, -1 loss for the player to move;
// the third occurrence of a position is a draw, a player without a turn
// loses. No tables: every line is followed to its end.
func (p *refPos) value(nodes *int) int {
	*nodes++
	if p.hist[p.key()] >= 3 {
		return 0
	}
	ts := p.turns()
	if len(ts) == 0 {
		return -1
	}
	best := -1
	for _, t := range ts {
		if v := -p.play(t).value(nodes); v > best {
			best = v
			if best == 1 {
				break
			}
		}
	}
	return best
}

// length is plain minimax over values and lengths: the value as value
// gives it, and the plies the game lasts with the winner hurrying (the
// fewest plies among his winning turns) and the loser delaying (the most
// among his turns, all lost); 0 for a draw. Each turn's value comes from
// value; the lengths are followed only through the turns that keep the
// position's value (a draw has no length), to the end of every line.
func (p *refPos) length(nodes *int) (val, plies int) {
	val = p.value(nodes)
	if val == 0 {
		return 0, 0
	}
	ts := p.turns()
	if len(ts) == 0 {
		return -1, 0
	}
	plies = -1
	for _, t := range ts {
		child := p.play(t)
		if -child.value(nodes) != val {
			continue
		}
		_, cp := child.length(nodes)
		if plies < 0 || val == 1 && cp+1 < plies || val == -1 && cp+1 > plies {
			plies = cp + 1
		}
	}
	return val, plies
}

// refFrom reads a position between turns (no history before it) into the
// reference implementation.
func refFrom(t testing.TB, rg *refGame, pos *Position) *refPos {
	p := &refPos{g: rg, marker: map[byte]int{}, pool: map[byte]bool{}, hist: map[string]int{}}
	for _, r := range pos.Board() {
		p.grid = append(p.grid, []byte(r))
	}
	for l, side := range pos.Markers() {
		p.marker[l[0]] = map[string]int{"first": 0, "second": 1}[side]
	}
	for _, l := range pos.Pool() {
		p.pool[l[0]] = true
	}
	p.toMove = map[string]int{"first": 0, "second": 1}[pos.ToMove()]
	p.hist[p.key()]++
	return p
}
