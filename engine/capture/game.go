package capture

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unsafe"

	"github.com/gamesolver/gamesolver/engine/internal/buildcache"
	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// MaxSide is the largest board width and height.
const MaxSide = polyomino.MaxSide

// maxPieces bounds the pieces of a game (the 35 hexominoes).
const maxPieces = 35

// Config describes a capture game. DefaultConfig is the capture preset of
// RULES.md; every field may be overridden.
type Config struct {
	// Width and Height of the board, 1..16 each.
	Width, Height int
	// Blocked cells in notation ("d4"): no piece may cover them.
	Blocked []string
	// Order of the pieces: 4 (tetrominoes), 5 (pentominoes) or 6
	// (hexominoes).
	Order int
	// Pieces names the pieces of the set in the game (each exists once);
	// empty means all of them.
	Pieces []string
}

// DefaultConfig is the capture preset: a 7 x 7 board and the twelve
// pentominoes in a common pool.
func DefaultConfig() Config { return Config{Width: 7, Height: 7, Order: 5} }

// Game is a compiled Config: every placement of every piece, with what the
// rules and the search need to know about it. A Game is read-only and safe
// for concurrent use.
type Game struct {
	cfg     Config
	width   int
	height  int
	cells   int     // width * height
	blocked cellSet // blocked cells
	open    cellSet // cells on the board that are not blocked
	set     *polyomino.Set
	// pieces in play, in set order; a piece's index here is its bit in a
	// pieceSet.
	pieces []*polyomino.Piece
	byName map[string]int
	// labels are the characters that draw each piece in board rows.
	labels []byte
	// placements of every piece; byPiece lists each piece's (ascending).
	placements []placement
	byPiece    [][]int32
	// masks[p][j] is the mask of placement byPiece[p][j]; masks64 the same
	// as single words when the board has at most 64 cells (small), which
	// the hot loops use.
	masks   [][]cellSet
	masks64 [][]uint64
	small   bool
	// evalCost is what one evaluation counts against the heuristic
	// player's node budget: it scans every placement, so big boards pay
	// more (one node per 2048 placements).
	evalCost int64
	index    map[placementKey]int32
	zobrist  zobristTable
}

// placement is one way to put one piece on the board.
type placement struct {
	piece int
	mask  cellSet
	cells []int16 // in reading order
	// edges lists, once per unit edge of the piece's outline, the board
	// cell on the other side (cells off the board are left out), so that a
	// cell sharing two edges with the piece appears twice.
	edges []int16
}

type placementKey struct {
	piece int
	mask  cellSet
}

// NewGame validates cfg and builds its placement tables, or finds them
// built, waiting for the build however long the queue (NewGameContext is
// the requests'): for the engine's own callers and the service's jobs,
// whose requests were admitted.
func NewGame(cfg Config) (*Game, error) { return newGame(context.Background(), cfg, false) }

// NewGameContext validates cfg and builds its placement tables, or finds
// them built, for a request: a new configuration is built in the queue of
// game builds the engines share (a 16 x 16 hexomino board takes about a
// tenth of a second and 10 MB), at most buildcache.GameLimits.Pending
// waiting (ErrBusy beyond); a caller whose ctx ends stops waiting
// (ctx.Err()), and a build nobody waits for any more leaves the queue.
// Built games are kept, the most recently used first, within
// buildcache.GameLimits.
func NewGameContext(ctx context.Context, cfg Config) (*Game, error) { return newGame(ctx, cfg, true) }

func newGame(ctx context.Context, cfg Config, bounded bool) (*Game, error) {
	g, err := validate(cfg)
	if err != nil {
		return nil, err
	}
	g, err = games.Get(ctx, gameKey(cfg), bounded, func() (*Game, error) {
		g.build()
		return g, nil
	})
	if errors.Is(err, buildcache.ErrFull) {
		return nil, faultf(ErrBusy, "%v", err)
	}
	return g, err
}

// gameKey is the game cache's key of a configuration: the configuration
// as given (Config returns it).
func gameKey(cfg Config) string {
	return fmt.Sprintf("%dx%d|%q|%d|%q", cfg.Width, cfg.Height, cfg.Blocked, cfg.Order, cfg.Pieces)
}

// games keeps recently built games (buildcache.GameLimits): the 16 x 16
// hexomino board was built for every request, a tenth of a second and 10
// MB each, without bound.
var games = buildcache.Games((*Game).approxBytes)

// validate checks cfg and makes its game without the placement tables
// (build makes them).
func validate(cfg Config) (*Game, error) {
	if err := polyomino.CheckSize(cfg.Width, cfg.Height); err != nil { // MaxSide is the engine's
		field := "Width"
		if fe := (*FieldError)(nil); errors.As(err, &fe) {
			field = fe.Field
		}
		return nil, inField(field, faultf(ErrBadConfig, "%v", err))
	}
	set, err := polyomino.Pieces(cfg.Order)
	if err != nil {
		return nil, inField("Order", faultf(ErrBadConfig, "piece order %d (expected 4, 5 or 6)", cfg.Order))
	}
	g := &Game{cfg: cfg, width: cfg.Width, height: cfg.Height, cells: cfg.Width * cfg.Height, set: set,
		byName: map[string]int{}, index: map[placementKey]int32{}}
	g.cfg.Blocked = append([]string(nil), cfg.Blocked...)
	g.cfg.Pieces = append([]string(nil), cfg.Pieces...)
	for _, s := range cfg.Blocked {
		c, err := parseCell(s)
		if err != nil {
			return nil, inField("Blocked", faultf(ErrBadConfig, "blocked: %v", err))
		}
		if !g.onBoard(c) {
			return nil, inField("Blocked", faultf(ErrBadConfig, "blocked cell %s is off the %dx%d board", c, g.width, g.height))
		}
		i := g.cellIndex(c)
		if g.blocked.has(i) {
			return nil, inField("Blocked", faultf(ErrBadConfig, "blocked cell %s listed twice", c))
		}
		g.blocked.set(i)
	}
	for i := 0; i < g.cells; i++ {
		if !g.blocked.has(i) {
			g.open.set(i)
		}
	}
	if len(cfg.Pieces) == 0 {
		g.pieces = append(g.pieces, set.Pieces...)
	} else {
		in := map[int]bool{}
		for _, name := range cfg.Pieces {
			p, ok := set.Piece(strings.TrimSpace(name))
			if !ok {
				return nil, inField("Pieces", faultf(ErrBadConfig, "pieces: no piece %q of order %d (%s)", name, set.Order, strings.Join(set.Names(), " ")))
			}
			if in[p.Index] {
				return nil, inField("Pieces", faultf(ErrBadConfig, "pieces: %s listed twice (each piece exists once)", p.Name))
			}
			in[p.Index] = true
		}
		for _, p := range set.Pieces {
			if in[p.Index] {
				g.pieces = append(g.pieces, p)
			}
		}
	}
	if len(g.pieces) > maxPieces {
		return nil, inField("Pieces", faultf(ErrBadConfig, "%d pieces (at most %d)", len(g.pieces), maxPieces))
	}
	const indexLabels = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i, p := range g.pieces {
		g.byName[p.Name] = i
		if len(p.Name) == 1 {
			g.labels = append(g.labels, p.Name[0])
		} else {
			g.labels = append(g.labels, indexLabels[p.Index%len(indexLabels)])
		}
	}
	return g, nil
}

// build makes the placement tables of a validated game.
func (g *Game) build() {
	g.buildPlacements()
	g.evalCost = max(1, int64(len(g.placements))/2048)
	g.zobrist = newZobrist(len(g.placements), len(g.pieces))
}

// approxBytes estimates the memory a built game holds: its placements
// (cells, edges, mask), their masks by piece, the index and the hash keys.
func (g *Game) approxBytes() int64 {
	var per int64
	for _, pl := range g.placements {
		per += int64(cap(pl.cells)+cap(pl.edges)) * 2
	}
	n := int64(len(g.placements))
	mask := int64(unsafe.Sizeof(cellSet{}))
	return 4096 + per + n*(int64(unsafe.Sizeof(placement{}))+ // the placements
		4+mask+8+ // byPiece, masks, masks64
		2*(int64(unsafe.Sizeof(placementKey{}))+4+8)+ // index (a Go map's buckets, half full or so)
		int64(unsafe.Sizeof(posKey{}))) // zobrist
}

func (g *Game) buildPlacements() {
	g.byPiece = make([][]int32, len(g.pieces))
	for pi, p := range g.pieces {
		for _, o := range p.Orientations {
			w, h := o.Bounds()
			for dy := 0; dy+h <= g.height; dy++ {
				for dx := 0; dx+w <= g.width; dx++ {
					pl := placement{piece: pi}
					ok := true
					for _, c := range o {
						i := (c.Y+dy)*g.width + c.X + dx
						if g.blocked.has(i) {
							ok = false
							break
						}
						pl.mask.set(i)
						pl.cells = append(pl.cells, int16(i))
					}
					if !ok {
						continue
					}
					for _, i := range pl.cells {
						c := g.cellAt(int(i))
						for _, d := range [...]polyomino.Cell{{X: 0, Y: -1}, {X: -1, Y: 0}, {X: 1, Y: 0}, {X: 0, Y: 1}} {
							n := polyomino.Cell{X: c.X + d.X, Y: c.Y + d.Y}
							if g.onBoard(n) && !pl.mask.has(g.cellIndex(n)) {
								pl.edges = append(pl.edges, int16(g.cellIndex(n)))
							}
						}
					}
					g.index[placementKey{pi, pl.mask}] = int32(len(g.placements))
					g.byPiece[pi] = append(g.byPiece[pi], int32(len(g.placements)))
					g.placements = append(g.placements, pl)
				}
			}
		}
	}
	// Placements of a piece in reading order of their cells, so that turn
	// lists come out in a stable, readable order.
	g.small = g.cells <= 64
	g.masks = make([][]cellSet, len(g.pieces))
	g.masks64 = make([][]uint64, len(g.pieces))
	for pi := range g.byPiece {
		list := g.byPiece[pi]
		sort.Slice(list, func(a, b int) bool {
			ca, cb := g.placements[list[a]].cells, g.placements[list[b]].cells
			for k := range ca {
				if ca[k] != cb[k] {
					return ca[k] < cb[k]
				}
			}
			return false
		})
		for _, i := range list {
			g.masks[pi] = append(g.masks[pi], g.placements[i].mask)
			g.masks64[pi] = append(g.masks64[pi], g.placements[i].mask[0])
		}
	}
}

// Config returns the configuration the game was built from.
func (g *Game) Config() Config {
	c := g.cfg
	c.Blocked = append([]string(nil), c.Blocked...)
	c.Pieces = append([]string(nil), c.Pieces...)
	return c
}

// Pieces names the pieces in play, in set order.
func (g *Game) Pieces() []string {
	out := make([]string, len(g.pieces))
	for i, p := range g.pieces {
		out[i] = p.Name
	}
	return out
}

// PlacementCount is the number of placements of all pieces on the empty
// board.
func (g *Game) PlacementCount() int { return len(g.placements) }

func (g *Game) onBoard(c polyomino.Cell) bool {
	return c.X >= 0 && c.Y >= 0 && c.X < g.width && c.Y < g.height
}

func (g *Game) cellIndex(c polyomino.Cell) int { return c.Y*g.width + c.X }

func (g *Game) cellAt(i int) polyomino.Cell { return polyomino.Cell{X: i % g.width, Y: i / g.width} }

// pieceNames lists the names of a set of pieces in set order.
func (g *Game) pieceNames(s pieceSet) []string {
	out := []string{}
	for ; s != 0; s &= s - 1 {
		out = append(out, g.pieces[s.lowest()].Name)
	}
	return out
}

// lookupPiece finds a piece of the game by name (any case).
func (g *Game) lookupPiece(name string) (int, error) {
	p, ok := g.set.Piece(name)
	if !ok {
		return 0, faultf(ErrUnknownPiece, "no piece %q among the polyominoes of order %d (%s)", name, g.set.Order, strings.Join(g.set.Names(), " "))
	}
	i, ok := g.byName[p.Name]
	if !ok {
		return 0, faultf(ErrUnknownPiece, "piece %s is not in this game (%s)", p.Name, strings.Join(g.Pieces(), " "))
	}
	return i, nil
}

// parseCell reads a cell name, with this package's error.
func parseCell(s string) (polyomino.Cell, error) {
	c, err := polyomino.ParseCell(s)
	if err != nil {
		return polyomino.Cell{}, faultf(ErrBadNotation, "cell %q (expected a column letter and a row number from 1, e.g. c4)", s)
	}
	return c, nil
}

// zobristTable holds the random keys of the position hash: one per
// placement (a piece on the board there), one per piece and marker, one
// per piece in the pool, one for the second player to move. Keys are 128
// bits wide so that two different positions sharing a key is not a risk
// worth reasoning about (the search and the repetition rule both trust it).
type zobristTable struct {
	placement []posKey
	marker    [][2]posKey
	pool      []posKey
	second    posKey
}

// posKey identifies a position between turns: board, markers, pool and
// player to move.
type posKey struct{ a, b uint64 }

func (k posKey) xor(o posKey) posKey { return posKey{k.a ^ o.a, k.b ^ o.b} }

func newZobrist(placements, pieces int) zobristTable {
	seed := uint64(0x6361707475726521) // "capture!"
	next := func() posKey {
		return posKey{splitmix64(&seed), splitmix64(&seed)}
	}
	z := zobristTable{placement: make([]posKey, placements), marker: make([][2]posKey, pieces), pool: make([]posKey, pieces)}
	for i := range z.placement {
		z.placement[i] = next()
	}
	for i := range z.marker {
		z.marker[i] = [2]posKey{next(), next()}
		z.pool[i] = next()
	}
	z.second = next()
	return z
}

func splitmix64(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// String describes the game.
func (g *Game) String() string {
	return fmt.Sprintf("capture %dx%d, %d pieces of order %d", g.width, g.height, len(g.pieces), g.set.Order)
}
