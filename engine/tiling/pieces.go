package tiling

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// MaxPieces is the largest number of pieces in a problem (a 16 x 16 region
// holds at most 64 tetrominoes).
const MaxPieces = 64

// maxSpecLen bounds the length of a piece list ParsePieces reads.
const maxSpecLen = 1024

// Pieces lists the pieces to place, all of one order. A piece listed n
// times is placed n times (see Problem.Multiset).
type Pieces []*polyomino.Piece

// ParsePieces reads a piece list of one order:
//
//   - "" means the twelve pentominoes;
//   - "tetrominoes", "pentominoes" or "hexominoes" mean the whole set,
//     each piece once;
//   - otherwise names, concatenated or separated by commas or spaces:
//     "FILNPTUVWXYZ", "F,I,L", "H01,H02", "H01H02", "h1 h2". Letters name
//     tetrominoes (I O T S L) and pentominoes (F I L N P T U V W X Y Z);
//     H01..H35 (or H1..H35) name hexominoes. Case does not matter.
//
// order fixes the order (4, 5 or 6); 0 infers it from the names, and
// letters that name both a tetromino and a pentomino (I, L, T) mean
// pentominoes unless O or S is also listed. A name listed twice appears
// twice in the result; Solve rejects that unless Problem.Multiset is set.
func ParsePieces(spec string, order int) (Pieces, error) {
	if order != 0 && order != 4 && order != 5 && order != 6 {
		return nil, fmt.Errorf("%w: order %d (expected 4, 5, 6, or 0 to infer it from the names)", ErrBadPieces, order)
	}
	if len(spec) > maxSpecLen {
		return nil, fmt.Errorf("%w: the piece list has %d characters, at most %d", ErrBadPieces, len(spec), maxSpecLen)
	}
	trimmed := strings.ToLower(strings.TrimSpace(spec))
	if trimmed == "" {
		trimmed = "pentominoes"
	}
	if n, ok := polyomino.SetOrder(trimmed); ok {
		if order != 0 && order != n {
			return nil, fmt.Errorf("%w: %q are of order %d, but order %d was asked for", ErrBadPieces, trimmed, n, order)
		}
		set, err := polyomino.Pieces(n)
		if err != nil {
			return nil, err
		}
		return append(Pieces(nil), set.Pieces...), nil
	}

	names, err := splitPieceNames(spec)
	if err != nil {
		return nil, err
	}
	if order == 0 {
		if order, err = inferOrder(names); err != nil {
			return nil, err
		}
	}
	set, err := polyomino.Pieces(order)
	if err != nil {
		return nil, err
	}
	if len(names) > MaxPieces {
		return nil, fmt.Errorf("%w: %d pieces listed, at most %d", ErrBadPieces, len(names), MaxPieces)
	}
	out := make(Pieces, 0, len(names))
	for _, name := range names {
		p, ok := set.Piece(name)
		if !ok {
			return nil, fmt.Errorf("%w: %q is not one of the %s (%s)",
				ErrUnknownPiece, name, orderName(order), strings.Join(set.Names(), " "))
		}
		out = append(out, p)
	}
	return out, nil
}

// splitPieceNames cuts a piece list into names: commas and spaces separate,
// and within a word every letter is a name, except 'H' followed by one or
// two digits, which is a hexomino number (returned as "H07").
func splitPieceNames(spec string) ([]string, error) {
	if fault := polyomino.MisspeltSetName(spec); fault != "" {
		return nil, fmt.Errorf("%w: %s", ErrBadPieces, fault)
	}
	var names []string
	words := strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) })
	for _, w := range words {
		if _, ok := polyomino.SetOrder(strings.ToLower(w)); ok {
			// Read letter by letter it named pieces of two orders ("S is
			// a tetromino but F a pentomino"): say what is wrong.
			return nil, fmt.Errorf("%w: %q names a whole set, which is given alone (\"pieces\": %q); with other pieces, list each by name",
				ErrBadPieces, w, strings.ToLower(w))
		}
		for i := 0; i < len(w); {
			ch := w[i]
			switch {
			case (ch == 'H' || ch == 'h') && i+1 < len(w) && isDigit(w[i+1]):
				j := i + 1
				for j < len(w) && j < i+3 && isDigit(w[j]) {
					j++
				}
				num := w[i+1 : j]
				if len(num) == 1 {
					num = "0" + num
				}
				names = append(names, "H"+num)
				i = j
			case ch < 0x80 && unicode.IsLetter(rune(ch)):
				names = append(names, strings.ToUpper(string(ch)))
				i++
			default:
				r := []rune(w[i:])[0]
				return nil, fmt.Errorf("%w: unexpected %q in the piece list %q (expected piece names like F, I, L or H01, separated by commas or not at all)",
					ErrBadPieces, r, spec)
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no piece names in %q", ErrBadPieces, spec)
	}
	return names, nil
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// inferOrder decides the order of a list of names given without one.
func inferOrder(names []string) (int, error) {
	var hexo, tetroOnly, pentoOnly string
	for _, n := range names {
		switch {
		case len(n) > 1:
			hexo = n
		case n == "O" || n == "S":
			tetroOnly = n
		case len(n) == 1 && strings.Contains("FNPUVWXYZ", n):
			pentoOnly = n
		} // a name of no piece (E) decides nothing: the lookup names it
	}
	letter := tetroOnly
	if letter == "" {
		letter = pentoOnly
	}
	switch {
	case hexo != "" && letter != "":
		return 0, fmt.Errorf("%w: %s is a hexomino but %s is not; list pieces of one order", ErrBadPieces, hexo, letter)
	case hexo != "":
		return 6, nil
	case tetroOnly != "" && pentoOnly != "":
		return 0, fmt.Errorf("%w: %s is a tetromino but %s a pentomino; list pieces of one order", ErrBadPieces, tetroOnly, pentoOnly)
	case tetroOnly != "":
		return 4, nil
	}
	return 5, nil
}

func orderName(order int) string {
	if name := polyomino.SetName(order); name != "" {
		return name
	}
	return fmt.Sprintf("polyominoes of order %d", order)
}

// DefaultPieces returns the twelve pentominoes, each once.
func DefaultPieces() Pieces {
	p, err := ParsePieces("", 5)
	if err != nil {
		panic(err) // the pentominoes are generated by polyomino; they cannot fail
	}
	return p
}

// Area is the number of cells the pieces cover together.
func (ps Pieces) Area() int {
	n := 0
	for _, p := range ps {
		n += p.Size()
	}
	return n
}

// String lists the names as ParsePieces reads them: letters concatenated
// for tetrominoes and pentominoes ("FILNPTUVWXYZ"), comma separated
// otherwise ("H01,H02").
func (ps Pieces) String() string {
	var b strings.Builder
	for i, p := range ps {
		if len(p.Name) > 1 && i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Name)
	}
	return b.String()
}

// Symbol is the character that stands for a piece in solution rows:
// polyomino.Symbol, the same as in a game's board.
func Symbol(p *polyomino.Piece) byte { return polyomino.Symbol(p.Name) }
