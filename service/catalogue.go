package service

import "sync"

// GameInfo describes one game the service analyzes, for GET /v1/games.
type GameInfo struct {
	ID          string      `json:"id" example:"polyomino"`
	Name        string      `json:"name" example:"Polyomino placement games"`
	Description string      `json:"description" example:"Golomb's Pentominoes and relatives"`
	Endpoints   []string    `json:"endpoints" example:"POST /v1/polyomino/analyze,POST /v1/polyomino/moves"`
	Parameters  []Parameter `json:"parameters,omitempty"`
	// The choices this service made where the original rules are
	// silent.
	HouseRules []string `json:"house_rules,omitempty" example:"Seed 0 is the default deal."`
	// Other facts a client should know (history-dependent rules not
	// applied, etc.).
	Notes []string `json:"notes,omitempty" example:"Pentominoes on 8 x 8 is a first-player win."`
	// The forms of the game, each with the request fields that select it.
	Variants  []Variant    `json:"variants,omitempty"`
	Presets   []PresetInfo `json:"presets,omitempty"`
	PieceSets []PieceSet   `json:"piece_sets,omitempty"`
}

// Variant is a form of a game and the request fields that select it.
type Variant struct {
	Name        string            `json:"name" example:"advanced rules, two-move-alternate drops"`
	Description string            `json:"description" example:"advanced rules (58 winning configurations); the opponent places each side's first two pieces, the owner the others"`
	Request     map[string]string `json:"request" example:"drop_style:two-move-alternate,rules:advanced"`
}

// Parameter is one request field with its type and allowed values (the
// OpenAPI document's request schemas give the same fields in full).
type Parameter struct {
	// The field's name in the request body.
	Name string `json:"name" example:"to_move"`
	// Its JSON type: string, integer, boolean, array (of strings or
	// integers), object, or two types joined by "|" where either is read
	// ("string|array": "FILNP" or ["F","I"]).
	Type        string   `json:"type" example:"string"`
	Description string   `json:"description" example:"first or second; defaults from the pieces placed"`
	Values      []string `json:"values,omitempty" example:"first,second"`
	Default     string   `json:"default,omitempty" example:"first"`
}

// PresetInfo is a named configuration of a placement game.
type PresetInfo struct {
	Name        string   `json:"name" example:"pentominoes"`
	Description string   `json:"description" example:"Golomb's game: the 12 pentominoes on 8 x 8, common pool, normal play"`
	Width       int      `json:"width" example:"8"`
	Height      int      `json:"height" example:"8"`
	Pieces      []string `json:"pieces" example:"F,I,L,N,P,T,U,V,W,X,Y,Z"`
	Mode        string   `json:"mode" example:"pool"`
	EndRule     string   `json:"end_rule" example:"normal"`
	// The rules: standard (placement) or capture (O'Dwyer's variant).
	Variant string `json:"variant,omitempty" enums:"standard,capture" example:"standard"`
}

// PieceSet lists the free polyominoes of one order with text pictures.
type PieceSet struct {
	Order  int         `json:"order" example:"5"`
	Name   string      `json:"name" example:"pentominoes"`
	Pieces []PieceInfo `json:"pieces"`
}

// PieceInfo is one piece: its name, orientations and a picture of its
// canonical orientation ('X' a cell, '.' a gap).
type PieceInfo struct {
	Name         string   `json:"name" example:"L"`
	Orientations int      `json:"orientations" example:"8"`
	Picture      []string `json:"picture" example:"XXXX,X..."`
	// The character that stands for the piece in the rows of a tiling's
	// solutions: the name of a tetromino or pentomino, and for H01..H35
	// one base-36 digit, 1..9 then A..Z.
	Symbol string `json:"symbol" example:"L"`
}

// Catalogue holds the games engines registered at start.
type Catalogue struct {
	mu    sync.Mutex
	games []GameInfo
}

// Register adds a game.
func (c *Catalogue) Register(g GameInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.games = append(c.games, g)
}

// Games returns the registered games in registration order.
func (c *Catalogue) Games() []GameInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]GameInfo{}, c.games...)
}
