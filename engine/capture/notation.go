package capture

import (
	"slices"
	"sort"
	"strings"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Turn is one player's turn: the pieces he removes (each carrying his
// marker), then the piece he places and the cells it covers. ParseTurn
// reads it from notation, String writes the canonical form.
type Turn struct {
	// Removals name the removed pieces.
	Removals []string
	// Piece names the placed piece; Cells are the cells it covers.
	Piece string
	Cells []polyomino.Cell
}

// maxTurnLen bounds the notation ParseTurn accepts: 35 removals and a
// hexomino on a 16 x 16 board take about 200 characters.
const maxTurnLen = 400

// ParseTurn reads a turn: removals written ~P (any number, separated by
// spaces), then the placement <piece>:<cells> with the cells separated by
// commas, e.g. "~Y Z:b3,c3,c4,c5,d5". Cells may come in any order and
// letters in either case; spaces around the parts are allowed. ParseTurn
// checks the syntax only; whether the pieces exist and the turn is legal
// is a Position's business. The result is canonical: names in upper case,
// removals sorted by name, cells in reading order.
func ParseTurn(s string) (Turn, error) {
	if len(s) > maxTurnLen {
		return Turn{}, faultf(ErrBadNotation, "turn of %d characters (at most %d)", len(s), maxTurnLen)
	}
	var t Turn
	rest := strings.TrimSpace(s)
	seen := map[string]bool{}
	for strings.HasPrefix(rest, "~") {
		after := rest[1:]
		rest = strings.TrimLeft(after, " \t")
		end := strings.IndexAny(rest, " \t~:")
		if end < 0 {
			end = len(rest)
		}
		name := strings.ToUpper(rest[:end])
		if end < len(rest) && rest[end] == ':' && len(rest) < len(after) {
			// "~ O:a4": a mark, then a placement.
			return Turn{}, faultf(ErrBadNotation, "turn %q: the removal mark ~ is followed by a placement (%s:...), not by the name of a piece to remove; write each removal as ~P, then the placement, e.g. ~Y Z:b3,c3,c4,c5,d5", s, name)
		}
		if end < len(rest) && rest[end] == ':' {
			return Turn{}, faultf(ErrBadNotation, "turn %q: a removal (~%s) is followed by a colon; write removals first, then the placement, e.g. ~Y Z:b3,c3,c4,c5,d5", s, name)
		}
		if err := checkName(name, s); err != nil {
			return Turn{}, err
		}
		if seen[name] {
			return Turn{}, faultf(ErrBadNotation, "turn %q removes %s twice", s, name)
		}
		seen[name] = true
		t.Removals = append(t.Removals, name)
		rest = strings.TrimSpace(rest[end:])
	}
	if rest == "" {
		return Turn{}, faultf(ErrBadNotation, "turn %q places no piece (expected [~P ...] <piece>:<cells>, e.g. ~Y Z:b3,c3,c4,c5,d5)", s)
	}
	name, list, ok := strings.Cut(rest, ":")
	name = strings.ToUpper(strings.TrimSpace(name))
	if !ok || name == "" {
		return Turn{}, faultf(ErrBadNotation, "turn %q (expected [~P ...] <piece>:<cells>, e.g. ~Y Z:b3,c3,c4,c5,d5)", s)
	}
	if err := checkName(name, s); err != nil {
		return Turn{}, err
	}
	t.Piece = name
	cellSeen := map[polyomino.Cell]bool{}
	for _, part := range strings.Split(list, ",") {
		c, err := parseCell(part)
		if err != nil {
			return Turn{}, faultf(ErrBadNotation, "turn %q: %v", s, err)
		}
		if cellSeen[c] {
			return Turn{}, faultf(ErrBadNotation, "turn %q lists cell %s twice", s, c)
		}
		cellSeen[c] = true
		t.Cells = append(t.Cells, c)
	}
	slices.SortFunc(t.Cells, polyomino.ReadingOrder)
	sort.Strings(t.Removals)
	return t, nil
}

func checkName(name, turn string) error {
	if name == "" {
		return faultf(ErrBadNotation, "turn %q: a removal mark ~ without a piece name", turn)
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return faultf(ErrBadNotation, "turn %q: piece name %q (letters and digits only)", turn, name)
		}
	}
	return nil
}

// String writes the turn in canonical notation: "~P ~Q Z:b3,c3,c4,c5,d5",
// removals sorted by name, cells in reading order.
func (t Turn) String() string {
	var sb strings.Builder
	removals := append([]string(nil), t.Removals...)
	sort.Strings(removals)
	for _, r := range removals {
		sb.WriteByte('~')
		sb.WriteString(r)
		sb.WriteByte(' ')
	}
	sb.WriteString(t.Piece)
	sb.WriteByte(':')
	cells := append([]polyomino.Cell(nil), t.Cells...)
	slices.SortFunc(cells, polyomino.ReadingOrder)
	for i, c := range cells {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(c.String())
	}
	return sb.String()
}

// toTurn converts an engine turn to notation terms.
func (g *Game) toTurn(t turn) Turn {
	pl := &g.placements[t.place]
	out := Turn{Piece: g.pieces[pl.piece].Name, Removals: g.pieceNames(t.remove)}
	if len(out.Removals) == 0 {
		out.Removals = nil
	}
	sort.Strings(out.Removals)
	out.Cells = make([]polyomino.Cell, len(pl.cells))
	for i, c := range pl.cells {
		out.Cells[i] = g.cellAt(int(c))
	}
	return out
}
