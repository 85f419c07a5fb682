package book

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// MergeOpenings adds the start-position lines of the build outputs in
// from to openings, the committed file of classified first moves, and
// returns the merged file: its lines sorted by class (the order of the
// empty board's Children), the search costs left out, and the class count
// and ranges of its first comment line brought up to date. A class found
// with two different values is an error; one found twice with the same
// value is kept once.
func MergeOpenings(openings *File, from ...*File) (*File, error) {
	start, err := PositionAfter(nil)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	children := start.Children()
	for i, c := range children {
		index[c.Moves[0].String()] = i
	}
	byClass := map[int]Line{}
	var lines []Line // of the empty board: every such section of each file
	for _, f := range append([]*File{openings}, from...) {
		for _, s := range f.Sections {
			if len(s.Moves) == 0 {
				lines = append(lines, s.Lines...)
			}
		}
	}
	for _, l := range lines {
		c, ok := index[l.Move]
		if !ok {
			return nil, fmt.Errorf("%s is not the canonical move of a class of the empty board", l.Move)
		}
		if err := checkOpening(l, c, children[c]); err != nil {
			return nil, err
		}
		l.Nodes, l.Elapsed = 0, 0
		if old, seen := byClass[c]; seen {
			if old.Wins != l.Wins || old.Class != l.Class {
				return nil, fmt.Errorf("class %d (%s): %s in one file, %s in another", c, l.Move, old.Outcome(), l.Outcome())
			}
			if old.Reply != "" {
				l.Reply = old.Reply // the committed file's reply has its refutation
			}
		}
		byClass[c] = l
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	out := &File{Comments: slices.Clone(openings.Comments)}
	sec := Section{}
	for _, c := range classes {
		sec.Lines = append(sec.Lines, byClass[c])
	}
	out.Sections = []Section{sec}
	if len(out.Comments) > 0 {
		out.Comments[0] = soFar.ReplaceAllString(out.Comments[0], "classified by search, "+strconv.Itoa(len(classes))+" so far (classes "+ranges(classes)+");")
	}
	return out, nil
}

// checkOpening checks the form of l, the line of class c (child): its
// class size, and for a losing move a winning reply that is a legal move
// after it (the file is the book's: a line written by hand, or cut short,
// must not reach it).
func checkOpening(l Line, c int, child polyomino.Child) error {
	if l.Class != len(child.Moves) {
		return fmt.Errorf("class %d (%s): %d moves in the line, the class has %d", c, l.Move, l.Class, len(child.Moves))
	}
	if l.Wins {
		if l.Reply != "" {
			return fmt.Errorf("class %d (%s): a winning move with a reply %s", c, l.Move, l.Reply)
		}
		return nil
	}
	if l.Reply == "" {
		return fmt.Errorf("class %d (%s): a loss without its winning reply", c, l.Move)
	}
	m, err := polyomino.ParseMove(l.Reply)
	if err == nil {
		_, err = child.Position.Play(m)
	}
	if err != nil {
		return fmt.Errorf("class %d (%s): reply %s: %w", c, l.Move, l.Reply, err)
	}
	return nil
}

// soFar is the part of the openings file's first comment that counts the
// classes classified.
var soFar = regexp.MustCompile(`classified by search, \d+ so far \(classes [^)]*\);`)

// ranges writes sorted numbers as "0-35, 39, 41 and 43-45".
func ranges(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(ns[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		}
		i = j + 1
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
