package polyomino

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gamesolver/gamesolver/engine/internal/buildcache"
)

// Game is a compiled configuration: the board geometry and every placement
// of every playable piece, precomputed. A Game is immutable and safe for
// concurrent use.
type Game struct {
	cfg   Config
	geo   *Geometry
	set   *Set
	hands [2]uint64 // playable pieces per player; equal in a common pool
	pool  bool
	score bool // ScoreRule
	small bool // at most 64 cells: placement masks fit a uint64

	placements []placement
	mask64     []uint64  // placement masks on small boards (== placements[i].mask[0])
	cellIdx    []uint8   // cell indices of placement i at [i*order, (i+1)*order)
	byPiece    [][]int32 // placement indices per set index
	byCells    map[Bits]int32
	// byAnchor[i] lists the placements whose lowest cell is i.
	byAnchor [][]int32
	// symPerm[s][i] is the image of placement i under geometry symmetry s.
	symPerm [][]int32
	// rectPerm[r] is, for a symmetry of the rectangle that does not map the
	// blocked cells onto themselves, the image of each placement (-1 when
	// it would cover a blocked cell), made on first use.
	rectPerm []rectPerm
	start    *Position
	// open is the set of cells that are not blocked.
	open Bits
}

type rectPerm struct {
	once sync.Once
	perm []int32
}

// placementPerm is the image of each placement under rectangle symmetry r
// (an index into RectSymmetries): -1 for a placement whose image covers a
// blocked cell.
func (g *Game) placementPerm(r int) []int32 {
	if s := g.geo.rectSym[r]; s >= 0 {
		return g.symPerm[s]
	}
	rp := &g.rectPerm[r]
	rp.once.Do(func() {
		rp.perm = make([]int32, len(g.placements))
		for i, pl := range g.placements {
			j, ok := g.byCells[mapCells(g.geo.rectMap[r], pl.mask)]
			if !ok {
				j = -1
			}
			rp.perm[i] = j
		}
	})
	return rp.perm
}

// placement is one piece in one orientation at one place.
type placement struct {
	piece int // set index
	mask  Bits
	cells []Cell // reading order, shared by the Moves handed out
}

// NewGame validates a configuration and compiles it, or finds it
// compiled, waiting for its build however long the queue (NewGameContext
// is the requests'): for the service's own callers (the opening book, a
// job's units, whose requests were admitted), which must not fail for a
// queue full of others' configurations.
func NewGame(cfg Config) (*Game, error) { return newGame(context.Background(), cfg, false) }

// NewGameContext validates a configuration and compiles it, or finds it
// compiled, for a request. Games are built a few at once (the build slots
// the engines share); a new configuration joins a queue of at most
// buildcache.GameLimits.Pending (ErrBusy beyond); a caller whose ctx ends
// stops waiting (ctx.Err()), and a build no caller waits for any more
// leaves the queue unbuilt. Built games are kept, the most recently used
// first, within buildcache.GameLimits.
func NewGameContext(ctx context.Context, cfg Config) (*Game, error) { return newGame(ctx, cfg, true) }

func newGame(ctx context.Context, cfg Config, bounded bool) (*Game, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	g, err := games.Get(ctx, gameKey(r), bounded, func() (*Game, error) { return buildGame(r) })
	if errors.Is(err, buildcache.ErrFull) {
		return nil, faultf(ErrBusy, "%v", err)
	}
	return g, err
}

// gameKey is the game cache's key of a configuration. The preset's name
// is the game's too (answers name it): the same board and pieces reached
// from two presets are two entries.
func gameKey(r *resolved) string { return r.cfg.Preset + "|" + r.fingerprint() }

// games keeps recently compiled games (buildcache.GameLimits): compiling
// the hexomino preset takes milliseconds, a request should not pay for it
// every time. Its builds take the slots the engines share (every core but
// one).
var games = buildcache.Games((*Game).approxBytes)

func buildGame(r *resolved) (*Game, error) {
	g := &Game{cfg: r.cfg, geo: r.geo, set: r.set, hands: r.hands, pool: r.cfg.Pool,
		score: r.cfg.EndRule == ScoreRule, small: r.geo.Small(), open: r.geo.Open()}
	g.byPiece = make([][]int32, len(r.set.Pieces))
	g.byCells = make(map[Bits]int32)
	g.byAnchor = make([][]int32, r.geo.Cells())
	for _, p := range r.set.Pieces {
		if (r.hands[0]|r.hands[1])&(1<<p.Index) == 0 {
			continue
		}
		for _, pl := range g.placementsOf(p, g.open) {
			i := int32(len(g.placements))
			g.placements = append(g.placements, pl)
			g.byPiece[p.Index] = append(g.byPiece[p.Index], i)
			g.byCells[pl.mask] = i
			a := g.geo.Index(pl.cells[0])
			g.byAnchor[a] = append(g.byAnchor[a], i)
		}
	}
	if len(g.placements) > 1<<20 {
		return nil, faultf(ErrBadConfig, "%d placements (too many)", len(g.placements))
	}
	for _, pl := range g.placements {
		for _, c := range pl.cells {
			g.cellIdx = append(g.cellIdx, uint8(g.geo.Index(c)))
		}
	}
	if g.small {
		g.mask64 = make([]uint64, len(g.placements))
		for i, pl := range g.placements {
			g.mask64[i] = pl.mask[0]
		}
	}
	g.rectPerm = make([]rectPerm, len(g.geo.rectMap))
	g.symPerm = make([][]int32, len(g.geo.Symmetries))
	for s := range g.geo.Symmetries {
		perm := make([]int32, len(g.placements))
		for i, pl := range g.placements {
			j, ok := g.byCells[g.geo.MapBits(s, pl.mask)]
			if !ok {
				return nil, fmt.Errorf("internal error: symmetry %d maps placement %d off the table", s, i)
			}
			perm[i] = j
		}
		g.symPerm[s] = perm
	}
	// The start position: blocked cells and neutral pieces.
	start := &Position{game: g, occ: g.geo.Blocked, avail: r.hands, toMove: First}
	for i, pi := range r.neutral {
		p := r.set.Pieces[pi]
		var pl placement
		if i < len(r.neutralMoves) {
			m := r.neutralMoves[i]
			q, err := g.resolveCells(p, m.Cells)
			if err != nil {
				return nil, inField("Neutral", faultf(ErrBadConfig, "neutral piece %s: %w", p.Name, err))
			}
			if q.mask.Intersects(start.occ) {
				return nil, inField("Neutral", faultf(ErrBadConfig, "neutral piece %s covers a blocked or occupied cell", p.Name))
			}
			pl = q
		} else {
			var ok bool
			if pl, ok = g.centralPlacement(p, g.open.AndNot(start.occ)); !ok {
				return nil, inField("Neutral", faultf(ErrBadConfig, "no room for neutral piece %s", p.Name))
			}
		}
		start.occ = start.occ.Or(pl.mask)
		start.placed = append(start.placed, Placed{Piece: p.Name, Cells: pl.cells, Owner: Neutral})
	}
	g.start = start
	return g, nil
}

// placementsOf lists every placement of a piece inside the free cells, by
// orientation and then reading order of the top-left corner.
func (g *Game) placementsOf(p *Piece, free Bits) []placement {
	var out []placement
	for _, o := range p.Orientations {
		w, h := o.Bounds()
		for y0 := 0; y0+h <= g.geo.Height; y0++ {
			for x0 := 0; x0+w <= g.geo.Width; x0++ {
				var m Bits
				cells := make([]Cell, len(o))
				for k, c := range o {
					cells[k] = Cell{c.X + x0, c.Y + y0}
					m.Set(g.geo.Index(cells[k]))
				}
				if m.AndNot(free).IsZero() {
					out = append(out, placement{piece: p.Index, mask: m, cells: cells})
				}
			}
		}
	}
	return out
}

// centralPlacement is the rule that places a dealt neutral piece: among the
// placements of the piece in the free cells, the one whose bounding box
// centre lies nearest the board centre (Euclidean distance), ties broken by
// orientation (the canonical orientation first, then the order of
// Piece.Orientations) and then by the reading order of the top-left corner.
// On the 15 x 15 hexomino board the neutral piece thus sits in the middle,
// far from every edge.
func (g *Game) centralPlacement(p *Piece, free Bits) (placement, bool) {
	best, bestD := placement{}, -1
	for _, pl := range g.placementsOf(p, free) {
		minX, minY, maxX, maxY := MaxSide, MaxSide, -1, -1
		for _, c := range pl.cells {
			minX, minY = min(minX, c.X), min(minY, c.Y)
			maxX, maxY = max(maxX, c.X), max(maxY, c.Y)
		}
		dx := minX + maxX + 1 - g.geo.Width // twice the offset of the centres
		dy := minY + maxY + 1 - g.geo.Height
		if d := dx*dx + dy*dy; bestD < 0 || d < bestD {
			best, bestD = pl, d
		}
	}
	return best, bestD >= 0
}

// resolveCells finds the placement of piece p on the given cells.
func (g *Game) resolveCells(p *Piece, cells []Cell) (placement, error) {
	var m Bits
	for _, c := range cells {
		if err := g.geo.cellOnBoard(c); err != nil {
			return placement{}, err
		}
		m.Set(g.geo.Index(c))
	}
	if len(cells) != p.Size() {
		return placement{}, faultf(ErrIllegalMove, "piece %s has %d cells, the move lists %d", p.Name, p.Size(), len(cells))
	}
	shape := make(Shape, len(cells))
	copy(shape, cells)
	shape = shape.Normalize()
	for _, o := range p.Orientations {
		if o.Equal(shape) {
			return placement{piece: p.Index, mask: m, cells: sortedCells(append([]Cell(nil), cells...))}, nil
		}
	}
	return placement{}, faultf(ErrIllegalMove, "cells %s do not form piece %s", cellList(cells), p.Name)
}

// CellList writes cells in reading order, separated by commas: "a1,b1,a2".
func CellList(cells []Cell) string { return cellList(cells) }

func cellList(cells []Cell) string {
	s := ""
	for i, c := range sortedCells(cells) {
		if i > 0 {
			s += ","
		}
		s += c.String()
	}
	return s
}

// Config returns the configuration the game was built from.
func (g *Game) Config() Config { return g.cfg }

// Geometry returns the board.
func (g *Game) Geometry() *Geometry { return g.geo }

// Set returns the piece set.
func (g *Game) Set() *Set { return g.set }

// Hand lists the pieces a player may place at the start (in a common pool
// both players get the pool).
func (g *Game) Hand(p Player) []string { return pieceNames(g.set, g.hands[p&1]) }

// Start is the position before the first move (blocked cells and neutral
// pieces in place, first player to move).
func (g *Game) Start() *Position { return g.start.clone() }

// Placements is the number of placements of the playable pieces on the
// empty board.
func (g *Game) Placements() int { return len(g.placements) }

// move converts a placement index to a Move.
func (g *Game) move(i int32) Move {
	pl := &g.placements[i]
	return Move{Piece: g.set.Pieces[pl.piece].Name, Cells: pl.cells}
}

// approxBytes is about what g holds in memory: its placement tables,
// symmetry maps (those made on first use counted as made) and index.
func (g *Game) approxBytes() int64 {
	n := int64(len(g.placements))
	order := int64(0)
	if n > 0 {
		order = int64(len(g.placements[0].cells))
	}
	per := int64(unsafe.Sizeof(placement{})) + order*int64(unsafe.Sizeof(Cell{})) + // placements and their cells
		order + 8 + 4 + 4 + // cellIdx, mask64, byPiece, byAnchor
		2*(int64(unsafe.Sizeof(Bits{}))+4+8) + // byCells (a Go map's buckets, half full or so)
		4*int64(len(g.symPerm)+len(g.rectPerm)) // symmetry maps
	return 4096 + n*per
}
