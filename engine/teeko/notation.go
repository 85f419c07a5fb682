package teeko

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseBoard parses a 25-character board string in square order 1..25:
// b black, r red, . empty; upper case is accepted. It checks only the
// syntax; NewPosition checks that the position can arise in a game.
func ParseBoard(s string) (Board, error) {
	if n := utf8.RuneCountInString(s); n != NumSquares {
		return Board{}, errorf(ErrBadBoard, "board has %d characters, expected %d", n, NumSquares)
	}
	var b Board
	sq := 0
	for _, ch := range s {
		sq++
		switch ch {
		case 'b', 'B':
			b.Black |= 1 << (sq - 1)
		case 'r', 'R':
			b.Red |= 1 << (sq - 1)
		case '.':
		default:
			return Board{}, errorf(ErrBadBoard, "character %q at square %d: expected b, r or .", ch, sq)
		}
	}
	return b, nil
}

// BoardFromSquares builds a board from the lists of black and red squares
// (1..25, any order). Squares off the board, listed twice or given to both
// colours are errors.
func BoardFromSquares(black, red []int) (Board, error) {
	var b Board
	for _, side := range []struct {
		color Color
		list  []int
		set   *Bitboard
	}{{Black, black, &b.Black}, {Red, red, &b.Red}} {
		for _, sq := range side.list {
			if sq < 1 || sq > NumSquares {
				return Board{}, &SideError{side.color, errorf(ErrBadBoard, "%s square %d is off the board (1..25)", side.color, sq)}
			}
			if side.set.Has(sq) {
				return Board{}, &SideError{side.color, errorf(ErrBadBoard, "square %d is listed twice for %s", sq, side.color)}
			}
			*side.set |= SquareBit(sq)
		}
	}
	if both := b.Black & b.Red; both != 0 {
		return Board{}, errorf(ErrBadBoard, "square %d is listed for both black and red", both.first()+1)
	}
	return b, nil
}

// ParseSquare parses a square number 1..25.
func ParseSquare(s string) (int, error) {
	if !isDigits(s) {
		return 0, errorf(ErrBadNotation, "square %q is not a number (1..25)", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > NumSquares {
		return 0, errorf(ErrBadNotation, "square %s is off the board (1..25)", s)
	}
	return n, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Move is a ply: a drop on square To (From = 0) or a slide from square From
// to the adjacent square To. Squares are numbered 1..25.
type Move struct {
	From, To int
}

// Drop returns the drop on square sq.
func Drop(sq int) Move { return Move{To: sq} }

// Slide returns the slide from square from to square to.
func Slide(from, to int) Move { return Move{From: from, To: to} }

// IsDrop reports whether the move is a drop.
func (m Move) IsDrop() bool { return m.From == 0 }

// String returns the notation: "13" for a drop, "14-9" for a slide.
func (m Move) String() string {
	if m.IsDrop() {
		return strconv.Itoa(m.To)
	}
	return strconv.Itoa(m.From) + "-" + strconv.Itoa(m.To)
}

// less orders moves in notation order: by from square (drops first), then
// by destination.
func (m Move) less(o Move) bool {
	if m.From != o.From {
		return m.From < o.From
	}
	return m.To < o.To
}

// ParseMove parses "13" (a drop) or "14-9" (a slide). Surrounding spaces are
// ignored. It checks the syntax and that the squares are on the board;
// whether the move is legal is decided by Position.Play.
func ParseMove(s string) (Move, error) {
	t := strings.TrimSpace(s)
	const expected = "expected a square such as 13 or a slide such as 14-9"
	if t == "" {
		return Move{}, errorf(ErrBadNotation, "empty move: %s", expected)
	}
	from, to, slide := strings.Cut(t, "-")
	if !slide {
		from, to = "", t
	}
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	if !isDigits(to) || (slide && !isDigits(from)) {
		return Move{}, errorf(ErrBadNotation, "%q is not a move: %s", s, expected)
	}
	var m Move
	for _, sq := range []struct {
		text string
		dst  *int
	}{{from, &m.From}, {to, &m.To}} {
		if sq.text == "" {
			continue
		}
		n, err := ParseSquare(sq.text)
		if err != nil {
			return Move{}, errorf(ErrBadNotation, "%q: %v", s, err)
		}
		*sq.dst = n
	}
	if m.From == m.To {
		return Move{}, errorf(ErrBadNotation, "%q slides to the square it starts from", s)
	}
	return m, nil
}
