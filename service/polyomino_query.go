package service

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// The request of the polyomino games: its fields read into an engine
// configuration and position, and its faults put down to its fields.

var (
	hexNames = regexp.MustCompile(`(?i)^(h\d{1,2})+$`)
	hexName  = regexp.MustCompile(`(?i)h\d{1,2}`)
)

// PieceNames is pieces as a string ("FILNP", "H01,H02", "pentominoes") or
// a list of names, kept as the string the service reads ("F,I,L").
type PieceNames string

// JSONKind names what pieces takes, for the decoder's messages.
func (PieceNames) JSONKind() string {
	return "a string of piece names (\"FILNP\", \"H01,H02\"), a set's name, or an array of piece names"
}

// UnmarshalJSON accepts a string or an array of strings.
func (p *PieceNames) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*p = PieceNames(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return TypeError(b, reflect.TypeOf(PieceNames("")))
	}
	*p = PieceNames(strings.Join(list, ","))
	return nil
}

// checkPieceNames refuses a piece list with an empty name ("I,,L",
// ["F",""]: it was dropped silently). Refused when asked or planned only:
// a job stored before this check was made still runs.
func checkPieceNames(p *PieceNames) error {
	if p == nil {
		return nil
	}
	if fault := polyomino.EmptyPieceName(string(*p)); fault != "" {
		return Invalid("pieces", nil, "pieces: %s", fault)
	}
	return nil
}

// splitPieces reads a piece list: names separated by commas or spaces, or
// letters run together ("FILNP"), or hexomino names run together
// ("H01H02").
func splitPieces(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(f) != 1 {
		return f
	}
	one := f[0]
	if hexNames.MatchString(one) {
		return hexName.FindAllString(one, -1)
	}
	out := make([]string, 0, len(one))
	for _, r := range one {
		out = append(out, string(r))
	}
	return out
}

// size is the board's size: the board rows give it (the width most of them
// have, so that the row at fault is the one named), unless width or height
// is given; else the preset's.
func (q PolyominoQuery) size(width, height int) (int, int, error) {
	if q.Board != nil && len(q.Board) == 0 {
		return width, height, Invalid("board", nil, "board has no rows: give every row of the board (they set its size), or leave board out for the start position")
	}
	if len(q.Board) > 0 {
		width, height = rowWidth(q.Board), len(q.Board)
		if q.Width == nil && (width < 1 || width > polyomino.MaxSide) || q.Height == nil && height > polyomino.MaxSide {
			return width, height, Invalid("board", nil, "board of %d rows of %d cells: a board has 1 to %d rows and columns", height, width, polyomino.MaxSide)
		}
	}
	if q.Width != nil {
		width = *q.Width
	}
	if q.Height != nil {
		height = *q.Height
	}
	return width, height, nil
}

// rowWidth is the length in characters most rows have, row 1's among
// those as frequent.
func rowWidth(rows []string) int {
	count := map[int]int{}
	for _, r := range rows {
		count[utf8.RuneCountInString(r)]++
	}
	best := utf8.RuneCountInString(rows[0])
	for _, r := range rows {
		if n := utf8.RuneCountInString(r); count[n] > count[best] {
			best = n
		}
	}
	return best
}

// pieces reads the pieces and order fields: a whole set by name, as
// tilings accepts, or a list of names of the given order, else of the
// order the names imply (else the preset's); order alone is its whole set.
func (q PolyominoQuery) pieces(order int) (int, []string, error) {
	if q.Order != nil && *q.Order == 0 {
		q.Order = nil // 0 infers the order, as in tilings
	}
	if q.Order != nil {
		if o := *q.Order; o < 4 || o > 6 {
			return order, nil, Invalid("order", nil, "order %d: expected 4 (tetrominoes), 5 (pentominoes), 6 (hexominoes), or 0 to infer it from the names", o)
		}
	}
	if q.Pieces == nil {
		if q.Order != nil {
			return *q.Order, nil, nil
		}
		return order, nil, nil
	}
	names := string(*q.Pieces)
	if strings.TrimSpace(names) == "" {
		return order, nil, Invalid("pieces", nil, "pieces is empty: name at least one piece (\"FILNP\", \"H01,H02\", [\"F\",\"I\"]) or a set (\"pentominoes\"), or leave it out for the preset's")
	}
	if o, ok := polyomino.SetOrder(names); ok {
		if q.Order != nil && *q.Order != o {
			return order, nil, Invalid("pieces", nil, "%q are of order %d, but order %d was asked for", names, o, *q.Order)
		}
		return o, nil, nil
	}
	if fault := polyomino.MisspeltSetName(names); fault != "" {
		return order, nil, Invalid("pieces", nil, "pieces: %s", fault)
	}
	list := splitPieces(names)
	if q.Order != nil {
		return *q.Order, list, nil
	}
	if o := pieceOrder(list, order); len(list) > 0 && o != 0 {
		order = o
	}
	return order, list, nil
}

// config applies the query's overrides to its preset.
func (q PolyominoQuery) config() (polyomino.Config, error) {
	name := q.Game
	if name == "" {
		name = "pentominoes"
	}
	cfg, err := polyomino.Preset(name)
	if err != nil {
		return cfg, Invalid("game", err, "%s", err.Error())
	}
	if err := q.boardAndPieces(&cfg.Width, &cfg.Height, &cfg.Blocked, &cfg.Order, &cfg.Pieces); err != nil {
		return cfg, err
	}
	if q.Pool != nil {
		cfg.Pool = *q.Pool
	}
	if q.Hands != nil && q.Pool != nil && *q.Pool {
		return cfg, Invalid("hands", nil, "hands with pool true: hands mean each player has his own pieces (leave pool out, or set it false)")
	}
	if q.Hands != nil {
		cfg.Pool = false
		cfg.Hands = [2][]string{q.Hands.First, q.Hands.Second}
	}
	if q.Neutral != nil {
		cfg.Neutral = *q.Neutral
		if len(cfg.Neutral) == 0 {
			cfg.NeutralCount = 0 // neutral: [] is no neutral piece, not the preset's dealt one
		}
	}
	if q.Seed != nil {
		cfg.Seed = *q.Seed
	}
	switch rule := strings.ToLower(strings.TrimSpace(q.EndRule)); rule {
	case "":
	case string(polyomino.NormalPlay), string(polyomino.ScoreRule):
		cfg.EndRule = polyomino.EndRule(rule)
	default:
		return cfg, Invalid("end_rule", nil, "end_rule %q: expected normal or score", q.EndRule)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, Invalid(fieldOf(err, "game"), err, "%s", err.Error())
	}
	return cfg, nil
}

// boardAndPieces applies the fields both variants' configurations share
// (the board's size and blocked cells, the pieces and their order) over
// the preset's values.
func (q PolyominoQuery) boardAndPieces(width, height *int, blocked *[]string, order *int, pieces *[]string) error {
	var err error
	if *width, *height, err = q.size(*width, *height); err != nil {
		return err
	}
	if q.Blocked != nil {
		*blocked = *q.Blocked
	}
	if q.Pieces != nil || q.Order != nil {
		if *order, *pieces, err = q.pieces(*order); err != nil {
			return err
		}
	}
	return nil
}

// pieceOrder infers the order of named pieces: hexomino names are order 6,
// O and S only exist as tetrominoes; otherwise the preset's order stands.
func pieceOrder(names []string, preset int) int {
	for _, n := range names {
		switch up := strings.ToUpper(n); {
		case strings.HasPrefix(up, "H") && len(up) > 1:
			return 6
		case up == "O" || up == "S":
			return 4
		}
	}
	if preset == 6 {
		return 5
	}
	return 0
}

// requestFields maps the fields of the engines' configurations and
// setups (polyomino.FieldError, capture.FieldError) to the request's.
var requestFields = map[string]string{
	"Width": "width", "Height": "height", "Blocked": "blocked", "Order": "order", "Pieces": "pieces",
	"Hands": "hands", "Neutral": "neutral", "NeutralCount": "neutral", "EndRule": "end_rule",
	"Variant": "game", "Moves": "moves",
	"Markers": "markers", "Pool": "pool", "Banned": "banned", "ToMove": "to_move",
}

// fieldOf is the request field an engine's error is about (the fields of
// a polyomino.FieldError), or otherwise when it names none.
func fieldOf(err error, otherwise string) string {
	var fe *polyomino.FieldError
	if errors.As(err, &fe) {
		if f, ok := requestFields[fe.Field]; ok {
			return f
		}
	}
	return otherwise
}

// buildFault maps the refusals of a request's game build (either engine's
// NewGameContext): the build queue full (the engine's busy error) is 503
// busy, retried after a second; the request's own end is its context's
// error. Any other error, or none, is nil: the caller's to map.
func buildFault(ctx context.Context, err, busy error) error {
	switch {
	case errors.Is(err, busy):
		return &Error{Kind: KindBusy, RetryAfter: time.Second, Message: err.Error()}
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return ctx.Err()
	}
	return nil
}

// position builds the position a query describes.
func (q PolyominoQuery) position() (*polyomino.Position, error) {
	return q.positionFor(context.Background(), false)
}

// requestPosition is position for a request: its game, when not built
// lately, is built in the requests' bounded queue (polyomino.NewGameContext:
// 503 busy when full) while ctx lasts (a request that ends leaves the
// queue, its error ctx's); a piece list with an empty name is refused
// (checkPieceNames).
func (q PolyominoQuery) requestPosition(ctx context.Context) (*polyomino.Position, error) {
	if err := checkPieceNames(q.Pieces); err != nil {
		return nil, err
	}
	return q.positionFor(ctx, true)
}

func (q PolyominoQuery) positionFor(ctx context.Context, request bool) (*polyomino.Position, error) {
	switch {
	case q.Markers != nil:
		return nil, Invalid("markers", nil, "markers belong to the capture variant (game \"capture\")")
	case q.PoolPieces != nil:
		return nil, Invalid("pool", nil, "a list of pieces as the pool belongs to the capture variant (game \"capture\"); here pool is true (a common pool) or false (hands)")
	case q.Banned != nil:
		return nil, Invalid("banned", nil, "banned pieces belong to the capture variant (game \"capture\")")
	}
	cfg, err := q.config()
	if err != nil {
		return nil, err
	}
	toMove, err := polyomino.ParsePlayer(q.ToMove)
	if err != nil {
		return nil, Invalid("to_move", err, "to_move %q: expected first or second", q.ToMove)
	}
	var g *polyomino.Game
	if request {
		g, err = polyomino.NewGameContext(ctx, cfg)
	} else {
		g, err = polyomino.NewGame(cfg)
	}
	var pos *polyomino.Position
	if err == nil {
		pos, err = g.NewPosition(q.Board, q.Moves, toMove)
	}
	if f := buildFault(ctx, err, polyomino.ErrBusy); f != nil {
		return nil, f
	}
	if err != nil {
		field := "board" // the board's faults, and a game too big to build
		if errors.Is(err, polyomino.ErrBadConfig) {
			field = "game"
		}
		return nil, inputError(err, field)
	}
	return pos, nil
}

// inputError is the 400 of an engine's refusal of a request's input:
// its field (fieldOf, otherwise when the error names none) and, for a
// move of a list, the move's index.
func inputError(err error, otherwise string) *Error {
	var fe *polyomino.FieldError
	if errors.As(err, &fe) && fe.Index > 0 {
		return InvalidMove(fieldOf(err, otherwise), fe.Index-1, err, "%s", err.Error())
	}
	return Invalid(fieldOf(err, otherwise), err, "%s", err.Error())
}
