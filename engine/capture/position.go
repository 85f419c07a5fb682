package capture

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
)

// Position is a state of a capture game together with its repetition
// history. Positions are immutable: Play returns a new one.
//
// What a position carries: the board (which piece covers which cells, plus
// cells covered for good, drawn '#'), the marker of each piece on the
// board (first's, second's or none), the pool (pieces that may be placed),
// the player to move, the removal ban (only for a position in the middle of
// a turn, see Setup.Banned; positions between turns have none) and the
// history: every position between turns since the start, for the
// repetition rule.
type Position struct {
	game *Game
	st   state
	// history lists the positions between turns from the start (or from
	// the first turn, when the start was in the middle of one), the
	// current one last.
	history  []histEntry
	captured pieceSet // captured by the turn that led here
	turns    int      // turns played since the start
}

// histEntry is a position of the history: its key, and what the search's
// repetition filter compares (see search.go).
type histEntry struct {
	key     posKey
	onBoard pieceSet
	where   [maxPieces]int32
}

func entryOf(s *state) histEntry {
	return histEntry{key: s.key, onBoard: s.onBoard, where: s.where}
}

// Play returns the position after the player to move makes turn t. The
// error says which rule t breaks (it wraps ErrIllegalTurn and one of
// ErrNotYourMarker, ErrBannedPiece, ErrOccupied, ...), or ErrGameOver.
func (p *Position) Play(t Turn) (*Position, error) {
	if err := p.gameOver(p.Drawn()); err != nil {
		return nil, err
	}
	tt, err := p.game.resolve(&p.st, t)
	if err != nil {
		return nil, err
	}
	return p.play(tt), nil
}

// gameOver is Play's error for a position where the game has ended (drawn
// tells whether it occurred for the third time), nil for one in progress.
func (p *Position) gameOver(drawn bool) error {
	if drawn {
		return faultf(ErrGameOver, "the game is over: the position occurred for the third time (draw)")
	}
	if !p.st.canPlace(p.game) {
		return faultf(ErrGameOver, "the game is over: %s cannot place a piece and has lost", playerNames[p.st.toMove])
	}
	return nil
}

// advance is Play made on p itself, for a position nobody else holds yet
// (NewPosition's), with seen counting the keys of its history: a game's
// turns are replayed in time and memory linear in their number (Play
// copies the history at each turn, and scans it for repetitions: a legal
// game of 2,820 turns cost a request half a second of CPU and 685 MB).
func (p *Position) advance(t Turn, seen map[posKey]int) error {
	if err := p.gameOver(p.st.banned == 0 && seen[p.st.key] >= 3); err != nil {
		return err
	}
	tt, err := p.game.resolve(&p.st, t)
	if err != nil {
		return err
	}
	p.captured = p.st.play(p.game, tt)
	p.turns++
	p.history = append(p.history, entryOf(&p.st))
	seen[p.st.key]++
	return nil
}

// PlayString parses a turn and plays it.
func (p *Position) PlayString(s string) (*Position, error) {
	t, err := ParseTurn(s)
	if err != nil {
		return nil, err
	}
	return p.Play(t)
}

// play makes a legal turn.
func (p *Position) play(t turn) *Position {
	q := &Position{game: p.game, st: p.st, turns: p.turns + 1}
	q.captured = q.st.play(p.game, t)
	q.history = make([]histEntry, len(p.history), len(p.history)+1)
	copy(q.history, p.history)
	q.history = append(q.history, entryOf(&q.st))
	return q
}

// Game returns the game of the position.
func (p *Position) Game() *Game { return p.game }

// ToMove is the player to move: "first" or "second".
func (p *Position) ToMove() string { return playerNames[p.st.toMove] }

// Markers maps every marked piece on the board to "first" or "second"
// (an empty map when none is marked).
func (p *Position) Markers() map[string]string {
	out := map[string]string{}
	for side := range 2 {
		for _, name := range p.game.pieceNames(p.st.marks[side]) {
			out[name] = playerNames[side]
		}
	}
	return out
}

// Pool lists the pieces that may be placed, in set order.
func (p *Position) Pool() []string { return p.game.pieceNames(p.st.pool) }

// Banned lists the pieces the player to move removed on the turn in
// progress (empty between turns).
func (p *Position) Banned() []string { return p.game.pieceNames(p.st.banned) }

// OnBoard lists the pieces on the board, in set order.
func (p *Position) OnBoard() []string { return p.game.pieceNames(p.st.onBoard) }

// Captured lists the pieces the turn that led to this position captured
// (pieces that already carried the mover's marker included).
func (p *Position) Captured() []string { return p.game.pieceNames(p.captured) }

// TurnsPlayed is the number of turns played since the start position.
func (p *Position) TurnsPlayed() int { return p.turns }

// Occurrences is the number of times the current position (board,
// markers, pool, player to move) has occurred in the game, this time
// included (0 for a position in the middle of a turn).
func (p *Position) Occurrences() int {
	n := 0
	for _, h := range p.history {
		if h.key == p.st.key {
			n++
		}
	}
	if p.st.banned != 0 {
		return 0
	}
	return n
}

// Key identifies the position together with what its analysis depends on:
// the game, the board, markers, pool, ban and player to move, and how many
// times each earlier position occurred (the repetition rule). Positions
// with equal keys have the same analysis, so a cache may use it.
func (p *Position) Key() string {
	g := p.game
	counts := map[posKey]int{}
	for _, h := range p.history {
		counts[h.key]++
	}
	keys := make([]posKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].a < keys[j].a || keys[i].a == keys[j].a && keys[i].b < keys[j].b })
	h := fnv.New128a()
	fmt.Fprintf(h, "%dx%d/%v/%v/%s|%s|%x|%d|", g.width, g.height, g.cfg.Blocked, g.Pieces(), strings.Join(p.Board(), "/"),
		mapString(p.Markers()), uint64(p.st.pool), p.st.toMove)
	fmt.Fprintf(h, "%x|", uint64(p.st.banned))
	for _, k := range keys {
		fmt.Fprintf(h, "%x:%x:%d,", k.a, k.b, counts[k])
	}
	return fmt.Sprintf("capture:%x", h.Sum(nil))
}

func mapString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		sb.WriteString(k + "=" + m[k] + ",")
	}
	return sb.String()
}

// Drawn reports whether the game ended in a draw by the house rule: the
// position occurred for the third time.
func (p *Position) Drawn() bool { return p.Occurrences() >= 3 }

// Stuck reports whether the player to move cannot place a piece, even
// after removing pieces: he has lost (unless the game was already drawn).
func (p *Position) Stuck() bool { return !p.st.canPlace(p.game) }

// Over reports whether the game has ended.
func (p *Position) Over() bool { return p.Drawn() || p.Stuck() }

// Winner is "first" or "second" when the game is over and won, "" for a
// draw or a game in progress.
func (p *Position) Winner() string {
	if p.Drawn() || !p.Stuck() {
		return ""
	}
	return playerNames[1-p.st.toMove]
}

// MaxListedTurns bounds LegalTurns: with many marked pieces the number of
// turns explodes (a mover with 20 marked pieces has a million removal
// combinations for every placement).
const MaxListedTurns = 1 << 20

// LegalTurns lists every legal turn of the player to move: each placement
// he can make, with the removals it needs and every combination of
// removals of his other marked pieces (so the list grows as 2^k with k
// marked pieces the placement does not need); removals sorted by name.
// The list stops after MaxListedTurns turns (CountTurns says how many
// there are). Nil when the game is over.
func (p *Position) LegalTurns() []Turn {
	if p.Over() {
		return nil
	}
	ts := p.st.appendTurns(p.game, nil, MaxListedTurns)
	out := make([]Turn, len(ts))
	for i, t := range ts {
		out[i] = p.game.toTurn(t)
	}
	return out
}

// CountTurns is len(LegalTurns()) without building the list.
func (p *Position) CountTurns() int {
	if p.Over() {
		return 0
	}
	return p.st.countTurns(p.game)
}

// Placements lists the placements the player to move can make, each with
// only the removals it needs (a subset of LegalTurns).
func (p *Position) Placements() []Turn {
	if p.Over() {
		return nil
	}
	ts := p.st.appendPlacements(p.game, nil)
	out := make([]Turn, len(ts))
	for i, t := range ts {
		out[i] = p.game.toTurn(t)
	}
	return out
}

// Board draws the position as rows, top first: '.' empty, '#' blocked or
// covered for good, and each piece by its label (its name for tetrominoes
// and pentominoes; 1..9, A..Z for hexominoes H01..H35). Markers are not
// drawn: see Markers.
func (p *Position) Board() []string {
	g := p.game
	out := make([]string, g.height)
	row := make([]byte, g.width)
	for y := range g.height {
		for x := range g.width {
			i := y*g.width + x
			switch {
			case g.blocked.has(i):
				row[x] = '#'
			case !p.st.occ.has(i):
				row[x] = '.'
			case p.st.owner[i] < 0:
				row[x] = '#'
			default:
				row[x] = g.labels[p.st.owner[i]]
			}
		}
		out[y] = string(row)
	}
	return out
}

// String draws the board with the markers and the player to move.
func (p *Position) String() string {
	var sb strings.Builder
	sb.WriteString(strings.Join(p.Board(), "\n"))
	fmt.Fprintf(&sb, "\nmarkers:")
	for side := range 2 {
		for _, n := range p.game.pieceNames(p.st.marks[side]) {
			fmt.Fprintf(&sb, " %s=%s", n, playerNames[side])
		}
	}
	fmt.Fprintf(&sb, "\npool: %s\nto move: %s", strings.Join(p.Pool(), " "), p.ToMove())
	return sb.String()
}
