package service

import "sync"

// GameInfo describes one game the service analyzes, for GET /v1/games.
type GameInfo struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Endpoints   []string    `json:"endpoints"`
	Parameters  []Parameter `json:"parameters,omitempty"`
	// The choices this service made where the original rules are
	// silent.
	HouseRules []string `json:"house_rules,omitempty"`
	// Other facts a client should know (history-dependent rules not
	// applied, etc.).
	Notes     []string     `json:"notes,omitempty"`
	Presets   []PresetInfo `json:"presets,omitempty"`
	PieceSets []PieceSet   `json:"piece_sets,omitempty"`
}

// Parameter is one request parameter with its allowed values.
type Parameter struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Values      []string `json:"values,omitempty"`
	Default     string   `json:"default,omitempty"`
}

// PresetInfo is a named configuration of a placement game.
type PresetInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Width       int      `json:"width"`
	Height      int      `json:"height"`
	Pieces      []string `json:"pieces"`
	Mode        string   `json:"mode"`
	EndRule     string   `json:"end_rule"`
	Variant     string   `json:"variant,omitempty"`
}

// PieceSet lists the free polyominoes of one order with text pictures.
type PieceSet struct {
	Order  int         `json:"order"`
	Name   string      `json:"name"`
	Pieces []PieceInfo `json:"pieces"`
}

// PieceInfo is one piece: its name, orientations and a picture of its
// canonical orientation ('X' a cell, '.' a gap).
type PieceInfo struct {
	Name         string   `json:"name"`
	Orientations int      `json:"orientations"`
	Picture      []string `json:"picture"`
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
