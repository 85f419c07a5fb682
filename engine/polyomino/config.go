package polyomino

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Errors callers can test with errors.Is. Every error the package returns
// wraps one of these (or ErrUnknownPieceSet / ErrBadShape of shape.go, or
// is the context's error of a caller that stopped waiting) and says what
// was expected.
var (
	ErrUnknownPreset = errors.New("unknown preset")
	ErrBadConfig     = errors.New("bad game configuration")
	ErrBadNotation   = errors.New("bad notation")
	ErrOffBoard      = errors.New("cell off the board")
	ErrBadBoard      = errors.New("bad board")
	ErrUnknownPiece  = errors.New("unknown piece")
	ErrPieceUsed     = errors.New("piece already placed")
	ErrIllegalMove   = errors.New("illegal move")
	ErrGameOver      = errors.New("game over")
	// ErrUnsupported is returned for what the engine does not do yet, such
	// as analysing the capture variant.
	ErrUnsupported = errors.New("not supported")
	// ErrBusy: too much work queued (games waiting to be built); retry.
	ErrBusy = errors.New("busy")
)

// EndRule says how a game ends and who wins.
type EndRule string

const (
	// NormalPlay: the player who cannot place a piece loses.
	NormalPlay EndRule = "normal"
	// ScoreRule: a player who cannot place passes; the game ends when
	// neither can place; each scores the number of pieces he placed (a
	// neutral piece scores for nobody); the higher score wins, equal scores
	// draw.
	ScoreRule EndRule = "score"
)

// Variant selects extra rules on top of placement.
type Variant string

const (
	// Standard is plain placement.
	Standard Variant = "standard"
	// Capture is O'Dwyer's capture variant (RULES.md); positions and legal
	// placements are supported, analysis returns ErrUnsupported for now.
	Capture Variant = "capture"
)

// Config describes a polyomino placement game. Start from Preset and
// override any field. The zero values of Variant and EndRule mean Standard
// and NormalPlay.
type Config struct {
	// Preset is the name of the preset the config came from (informative).
	Preset string
	// Width and Height of the board, 1..16 each.
	Width, Height int
	// Blocked cells in notation ("d4").
	Blocked []string
	// Order of the pieces: 4, 5 or 6.
	Order int
	// Pieces names the pieces of the set in the game; empty means all.
	Pieces []string
	// Pool: true for a common pool, false for hands.
	Pool bool
	// Hands are the pieces of the first and second player in hand mode.
	// When both are empty the pieces are dealt from Seed (see Deal); when
	// one is empty it gets every piece the other hand and the neutral
	// pieces leave.
	Hands [2][]string
	// NeutralCount pieces are set aside by the deal and placed before the
	// first move as neutral pieces (scoring for nobody), unless Neutral
	// gives the placements.
	NeutralCount int
	// Neutral lists neutral placements in move notation, placed before the
	// first move. It overrides NeutralCount.
	Neutral []string
	// Seed of the deal.
	Seed uint64
	// EndRule: NormalPlay or ScoreRule.
	EndRule EndRule
	// Variant: Standard or Capture.
	Variant Variant
}

// PresetInfo describes a preset for listings.
type PresetInfo struct {
	Name        string
	Description string
	Config      Config
}

// presets returns fresh copies, so callers may modify what they get.
func presets() []PresetInfo {
	return []PresetInfo{
		{"pentominoes", "Golomb's game: 8 x 8 board, the 12 pentominoes in a common pool, the player who cannot move loses",
			Config{Preset: "pentominoes", Width: 8, Height: 8, Order: 5, Pool: true, EndRule: NormalPlay, Variant: Standard}},
		{"tetrominoes", "5 x 5 board, the 5 tetrominoes in a common pool, the player who cannot move loses",
			Config{Preset: "tetrominoes", Width: 5, Height: 5, Order: 4, Pool: true, EndRule: NormalPlay, Variant: Standard}},
		{"hexominoes", "15 x 15 board, the 35 hexominoes: one placed first as a neutral piece near the centre, 17 dealt to each player; a player who cannot place passes, most pieces placed wins",
			Config{Preset: "hexominoes", Width: 15, Height: 15, Order: 6, Pool: false, NeutralCount: 1, EndRule: ScoreRule, Variant: Standard}},
		{"capture", "O'Dwyer's capture variant: 7 x 7 board, the 12 pentominoes in a common pool, capturing pieces (analyze solves its positions within the budget, or answers with the computer opponent's move)",
			Config{Preset: "capture", Width: 7, Height: 7, Order: 5, Pool: true, EndRule: NormalPlay, Variant: Capture}},
	}
}

// Presets lists the presets of RULES.md.
func Presets() []PresetInfo { return presets() }

// Preset returns the configuration of a preset: pentominoes, tetrominoes,
// hexominoes or capture.
func Preset(name string) (Config, error) {
	var names []string
	key := strings.ToLower(strings.TrimSpace(name)) // ASCII names: no Unicode folding ("tetrominoeſ")
	for _, p := range presets() {
		if p.Name == key {
			return p.Config, nil
		}
		names = append(names, p.Name)
	}
	return Config{}, faultf(ErrUnknownPreset, "unknown preset %q (expected one of %s)", name, strings.Join(names, ", "))
}

// normalized fills defaults.
func (c Config) normalized() Config {
	if c.EndRule == "" {
		c.EndRule = NormalPlay
	}
	if c.Variant == "" {
		c.Variant = Standard
	}
	return c
}

// Validate checks the configuration without building the placement tables.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolved is a validated configuration in engine terms.
type resolved struct {
	cfg     Config
	set     *Set
	geo     *Geometry
	inGame  uint64    // pieces of the game (Config.Pieces)
	hands   [2]uint64 // pool: both equal the pool
	neutral []int     // set indices of neutral pieces
	// neutralMoves are the explicit neutral placements (parsed, unchecked
	// against occupancy until the game is built).
	neutralMoves []Move
}

func (c Config) resolve() (*resolved, error) {
	c = c.normalized()
	r := &resolved{cfg: c}
	switch c.EndRule {
	case NormalPlay, ScoreRule:
	default:
		return nil, inField("EndRule", faultf(ErrBadConfig, "end rule %q (expected normal or score)", c.EndRule))
	}
	switch c.Variant {
	case Standard, Capture:
	default:
		return nil, inField("Variant", faultf(ErrBadConfig, "variant %q (expected standard or capture)", c.Variant))
	}
	set, err := Pieces(c.Order)
	if err != nil {
		return nil, inField("Order", faultf(ErrBadConfig, "%w", err))
	}
	if len(set.Pieces) > 64 {
		return nil, inField("Order", faultf(ErrBadConfig, "%d pieces (at most 64)", len(set.Pieces)))
	}
	r.set = set
	var blocked []int
	if err := CheckSize(c.Width, c.Height); err != nil {
		return nil, err
	}
	probe := &Geometry{Width: c.Width, Height: c.Height}
	seen := map[int]bool{}
	for _, s := range c.Blocked {
		cell, err := ParseCell(s)
		if err != nil {
			return nil, inField("Blocked", faultf(ErrBadConfig, "blocked: %w", err))
		}
		if err := probe.cellOnBoard(cell); err != nil {
			return nil, inField("Blocked", faultf(ErrBadConfig, "blocked: %w", err))
		}
		i := probe.Index(cell)
		if seen[i] {
			return nil, inField("Blocked", faultf(ErrBadConfig, "blocked cell %s listed twice", cell))
		}
		seen[i] = true
		blocked = append(blocked, i)
	}
	if r.geo, err = NewGeometry(c.Width, c.Height, blocked); err != nil {
		return nil, err
	}
	names := func(field, what string, list []string) (uint64, error) {
		var m uint64
		for _, n := range list {
			p, ok := set.Piece(strings.TrimSpace(n))
			if !ok {
				return 0, inField(field, faultf(ErrBadConfig, "%s: no piece %q among the %d pieces of order %d (%s)", what, n, len(set.Pieces), c.Order, strings.Join(set.Names(), " ")))
			}
			if m&(1<<p.Index) != 0 {
				return 0, inField(field, faultf(ErrBadConfig, "%s: piece %s listed twice", what, p.Name))
			}
			m |= 1 << p.Index
		}
		return m, nil
	}
	if len(c.Pieces) == 0 {
		r.inGame = 1<<len(set.Pieces) - 1
	} else if r.inGame, err = names("Pieces", "pieces", c.Pieces); err != nil {
		return nil, err
	}
	var hands [2]uint64
	for p := range hands {
		if hands[p], err = names("Hands", Player(p).String()+" hand", c.Hands[p]); err != nil {
			return nil, err
		}
		if hands[p]&^r.inGame != 0 {
			return nil, inField("Hands", faultf(ErrBadConfig, "%s hand holds piece %s, which is not in the game's pieces", Player(p), set.Pieces[trailingZeros(hands[p]&^r.inGame)].Name))
		}
	}
	if hands[0]&hands[1] != 0 {
		return nil, inField("Hands", faultf(ErrBadConfig, "piece %s is in both hands", set.Pieces[trailingZeros(hands[0]&hands[1])].Name))
	}
	if c.Pool && hands[0]|hands[1] != 0 {
		return nil, inField("Hands", faultf(ErrBadConfig, "hands given for a common-pool game (set pool to false)"))
	}
	if c.NeutralCount < 0 {
		return nil, inField("NeutralCount", faultf(ErrBadConfig, "neutral count %d (expected 0 or more)", c.NeutralCount))
	}
	var neutralSet uint64
	for i, s := range c.Neutral {
		m, err := ParseMove(s)
		if err != nil {
			return nil, inField("Neutral", faultf(ErrBadConfig, "neutral piece %d: %w", i+1, err))
		}
		p, ok := set.Piece(m.Piece)
		if !ok || r.inGame&(1<<p.Index) == 0 {
			return nil, inField("Neutral", faultf(ErrBadConfig, "neutral piece %d: no piece %s in this game", i+1, m.Piece))
		}
		if neutralSet&(1<<p.Index) != 0 {
			return nil, inField("Neutral", faultf(ErrBadConfig, "neutral piece %s placed twice", p.Name))
		}
		if (hands[0]|hands[1])&(1<<p.Index) != 0 {
			return nil, inField("Neutral", faultf(ErrBadConfig, "neutral piece %s is also in a hand", p.Name))
		}
		neutralSet |= 1 << p.Index
		r.neutral = append(r.neutral, p.Index)
		r.neutralMoves = append(r.neutralMoves, m)
	}
	// The deal: the game's pieces not yet assigned, in set order, shuffled
	// by Seed; the first NeutralCount become neutral (unless Neutral gave
	// placements), the rest fill the empty hands.
	free := r.inGame &^ (hands[0] | hands[1] | neutralSet)
	order := shuffled(free, c.Seed)
	if len(c.Neutral) == 0 && c.NeutralCount > 0 {
		if c.NeutralCount > len(order) {
			return nil, inField("NeutralCount", faultf(ErrBadConfig, "%d neutral pieces to deal but only %d pieces are left for the deal: give neutral [] for no neutral piece", c.NeutralCount, len(order)))
		}
		r.neutral = append(r.neutral, order[:c.NeutralCount]...)
		for _, p := range order[:c.NeutralCount] {
			neutralSet |= 1 << p
		}
		order = order[c.NeutralCount:]
	}
	if c.Pool {
		pool := r.inGame &^ neutralSet
		r.hands = [2]uint64{pool, pool}
	} else {
		switch {
		case hands[0] == 0 && hands[1] == 0:
			for i, p := range order {
				hands[i%2] |= 1 << p
			}
		case hands[1] == 0:
			for _, p := range order {
				hands[1] |= 1 << p
			}
		case hands[0] == 0:
			for _, p := range order {
				hands[0] |= 1 << p
			}
		}
		r.hands = hands
	}
	return r, nil
}

// shuffled returns the set indices of a piece mask in the order of the deal:
// a Fisher-Yates shuffle of the indices in increasing order, driven by
// splitmix64 seeded with seed; for i from n-1 down to 1 it swaps i with
// next() mod (i+1).
func shuffled(mask uint64, seed uint64) []int {
	var out []int
	for m := mask; m != 0; m &= m - 1 {
		out = append(out, trailingZeros(m))
	}
	rng := splitmix64(seed)
	for i := len(out) - 1; i > 0; i-- {
		j := int(rng.next() % uint64(i+1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// splitmix64 is the small deterministic generator of the deal and of the
// test and self-play tools.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Player is a side: First or Second. Owners of placed pieces may also be
// Neutral or Unknown (a piece read from board rows in a common-pool game).
type Player int8

const (
	First  Player = 0
	Second Player = 1
	// Neutral owns the neutral pieces placed before the first move.
	Neutral Player = 2
	// Unknown owns pieces read from a board whose placer cannot be told.
	Unknown Player = 3
	// DefaultToMove asks NewPosition to infer the player to move.
	DefaultToMove Player = -1
)

// String is "first", "second", "neutral", "unknown" or "default".
func (p Player) String() string {
	switch p {
	case First:
		return "first"
	case Second:
		return "second"
	case Neutral:
		return "neutral"
	case Unknown:
		return "unknown"
	}
	return "default"
}

// Opponent is the other side.
func (p Player) Opponent() Player { return 1 - p }

// ParsePlayer reads "first", "second" (or "1", "2"); "" gives DefaultToMove.
func ParsePlayer(s string) (Player, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return DefaultToMove, nil
	case "first", "1":
		return First, nil
	case "second", "2":
		return Second, nil
	}
	return DefaultToMove, faultf(ErrBadConfig, "player %q (expected first or second)", s)
}

// pieceNames lists the names of a piece mask in set order.
func pieceNames(set *Set, m uint64) []string {
	var out []string
	for ; m != 0; m &= m - 1 {
		out = append(out, set.Pieces[trailingZeros(m)].Name)
	}
	return out
}

// fingerprint identifies a resolved configuration (for caching games).
func (r *resolved) fingerprint() string {
	b := make([]string, 0, 8)
	bl := r.geo.Blocked.Cells()
	sort.Ints(bl)
	nm := make([]string, len(r.neutralMoves))
	for i, m := range r.neutralMoves {
		nm[i] = m.String()
	}
	b = append(b, fmt.Sprint(r.cfg.Width, r.cfg.Height, bl, r.cfg.Order, r.inGame, r.hands, r.neutral, nm, r.cfg.Pool, r.cfg.EndRule, r.cfg.Variant))
	return strings.Join(b, "|")
}

// FieldError is a fault of one field of a Config, or of the moves given to
// Game.NewPosition, so that a caller can tell which of its inputs to blame
// without reading the message: Field names it as Config does ("Width",
// "Height", "Blocked", "Order", "Pieces", "Hands", "Neutral",
// "NeutralCount", "EndRule", "Variant"), or "Moves". Its message is Err's
// (which says which field, in words).
type FieldError struct {
	Field string
	// Index is the 1-based position of the item at fault when Field is
	// a list of moves (0: none).
	Index int
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// inField puts err down to field (a FieldError).
func inField(field string, err error) error { return &FieldError{Field: field, Err: err} }

// fault is an error of a kind (one of the Err values, for errors.Is)
// whose message is only its own text: "cell k3 is off the 8x8 board"
// rather than "cell off the board: cell k3 is off the 8x8 board".
type fault struct {
	kind  error
	inner error
}

func (f *fault) Error() string   { return f.inner.Error() }
func (f *fault) Unwrap() []error { return []error{f.kind, f.inner} }

// faultf makes a fault; the format may wrap further errors with %w.
func faultf(kind error, format string, args ...any) error {
	return &fault{kind: kind, inner: fmt.Errorf(format, args...)}
}
