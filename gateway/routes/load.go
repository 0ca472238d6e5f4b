package routes

import (
	"errors"
	"fmt"

	"github.com/restgate/gateway/gateway/config"
)

// Load reads, validates and tables the config file at path. It is the one
// way the gateway reads configuration: `gateway serve` at start, every
// reload and `gateway check` call it, and the gateway is then assembled from
// the returned config and table (app.Build) without building the table
// again. Every problem of the file, its validation and its route table is
// reported, each with its key path, in one joined error.
func Load(path string, getenv func(string) string) (*config.Config, *Table, error) {
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return nil, nil, err
	}
	return check(cfg)
}

// Parse is Load of data already read from the file at path (named in the
// errors), for a caller that needs the bytes themselves too (a reload
// compares them with the ones serving).
func Parse(path string, data []byte, getenv func(string) string) (*config.Config, *Table, error) {
	cfg, err := config.Parse(data, getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("config %s: %w", path, err)
	}
	return check(cfg)
}

// check validates cfg and builds its table.
func check(cfg *config.Config) (*config.Config, *Table, error) {
	verr := config.Validate(cfg)
	table, terr := Build(cfg)
	if err := errors.Join(verr, terr); err != nil {
		return nil, nil, err
	}
	return cfg, table, nil
}
