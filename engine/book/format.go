package book

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrFormat is wrapped by every error of Parse.
var ErrFormat = errors.New("bad book file")

// File is a book file: sections, each the classified moves of one
// position (see the package documentation for the text form).
type File struct {
	// Comments are the leading '#' lines, without the '#'.
	Comments []string
	Sections []Section
}

// Section is one position, given by its moves from the empty board, and
// some of its moves, one line per symmetry class.
type Section struct {
	Moves []string // empty: the start position
	Lines []Line
}

// Line is one class of moves of a section's position.
type Line struct {
	// Move stands for its class, in canonical notation.
	Move string `json:"move"`
	// Class is the number of moves of the class: the images of Move under
	// the symmetries of the board that map the position onto itself.
	Class int `json:"images"`
	// Wins: the move wins for the player who makes it (every reply loses).
	Wins bool `json:"wins"`
	// Reply, for a losing move, is a winning reply: the certificate's
	// third move.
	Reply string `json:"reply,omitempty"`
	// Plies, when known (nil: not recorded), is how many plies the game
	// lasts after the move under perfect play (the winner making the
	// fastest win, the loser the slowest loss); Reply is then a fastest
	// win (Options.Lengths).
	Plies *int `json:"plies,omitempty"`
	// Nodes and Elapsed are the cost of the search that classified the
	// move (optional; zero when not recorded).
	Nodes   int64         `json:"nodes,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
}

// Outcome names the value of the move for its maker.
func (l Line) Outcome() string {
	if l.Wins {
		return "win"
	}
	return "loss"
}

// Section returns the section of the position after moves (nil if none).
func (f *File) Section(moves []string) *Section {
	for i := range f.Sections {
		if slicesEqual(f.Sections[i].Moves, moves) {
			return &f.Sections[i]
		}
	}
	return nil
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Format writes the file in its text form.
func (f *File) Format() []byte {
	var b bytes.Buffer
	for _, c := range f.Comments {
		b.WriteString("#" + c + "\n")
	}
	for _, s := range f.Sections {
		b.WriteString("position ")
		if len(s.Moves) == 0 {
			b.WriteString("start")
		} else {
			b.WriteString(strings.Join(s.Moves, " "))
		}
		b.WriteByte('\n')
		for _, l := range s.Lines {
			fmt.Fprintf(&b, "%s %d %s", l.Move, l.Class, l.Outcome())
			if l.Reply != "" {
				b.WriteString(" " + l.Reply)
			}
			if l.Plies != nil {
				fmt.Fprintf(&b, " plies=%d", *l.Plies)
			}
			if l.Nodes != 0 || l.Elapsed != 0 {
				fmt.Fprintf(&b, " nodes=%d ms=%d", l.Nodes, l.Elapsed.Milliseconds())
			}
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// Parse reads a book file. It checks the syntax only; whether the moves
// are legal and the values right is for a Book (Load) and the checker.
func Parse(data []byte) (*File, error) {
	f := &File{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var cur *Section
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#"):
			if len(f.Sections) == 0 {
				f.Comments = append(f.Comments, strings.TrimPrefix(text, "#"))
			}
			continue
		}
		fields := strings.Fields(text)
		if fields[0] == "position" {
			s := Section{}
			if len(fields) == 1 {
				return nil, fmt.Errorf("%w: line %d: position without moves (write \"position start\")", ErrFormat, n)
			}
			if !(len(fields) == 2 && fields[1] == "start") {
				s.Moves = fields[1:]
			}
			f.Sections = append(f.Sections, s)
			cur = &f.Sections[len(f.Sections)-1]
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%w: line %d: a move before the first \"position\" line", ErrFormat, n)
		}
		l, err := parseLine(fields)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, n, err)
		}
		cur.Lines = append(cur.Lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return f, nil
}

// maxMillis is the largest ms= a time.Duration holds.
const maxMillis = int64(1<<63-1) / int64(time.Millisecond)

// maxPlies bounds plies=: no game of the engine lasts longer (a 16 x 16
// board holds at most 64 tetrominoes).
const maxPlies = 256

// parseLine reads "<move> <class> win|loss [<reply>] [plies=P] [nodes=N ms=T]".
func parseLine(fields []string) (Line, error) {
	if len(fields) < 3 {
		return Line{}, fmt.Errorf("%q: expected <move> <class size> win|loss [<reply>]", strings.Join(fields, " "))
	}
	l := Line{Move: fields[0]}
	c, err := strconv.Atoi(fields[1])
	if err != nil || c < 1 {
		return Line{}, fmt.Errorf("class size %q: expected a positive number", fields[1])
	}
	l.Class = c
	switch fields[2] {
	case "win":
		l.Wins = true
	case "loss":
	default:
		return Line{}, fmt.Errorf("outcome %q: expected win or loss", fields[2])
	}
	for _, f := range fields[3:] {
		key, val, ok := strings.Cut(f, "=")
		if !ok {
			if l.Reply != "" || l.Wins {
				return Line{}, fmt.Errorf("unexpected %q (a reply is given for losing moves only, once)", f)
			}
			l.Reply = f
			continue
		}
		v, err := strconv.ParseInt(val, 10, 64)
		if err != nil || v < 0 || key == "ms" && v > maxMillis || key == "plies" && v > maxPlies {
			return Line{}, fmt.Errorf("%s=%q: expected a number (ms at most %d, plies at most %d)", key, val, maxMillis, maxPlies)
		}
		switch key {
		case "plies":
			n := int(v)
			l.Plies = &n
		case "nodes":
			l.Nodes = v
		case "ms":
			l.Elapsed = time.Duration(v) * time.Millisecond
		default:
			return Line{}, fmt.Errorf("unknown field %q", key)
		}
	}
	if p := l.Plies; p != nil && (*p%2 == 1) == l.Wins {
		// After a winning move the player to move loses: the winner
		// makes the last move, an even number of plies later (0: the
		// game is over); after a losing one, an odd number.
		return Line{}, fmt.Errorf("plies=%d: a %s move leaves an %s number of plies", *p, l.Outcome(), map[bool]string{true: "even", false: "odd"}[l.Wins])
	}
	return l, nil
}
