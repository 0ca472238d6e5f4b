package routes

import (
	"errors"

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
	verr := config.Validate(cfg)
	table, terr := Build(cfg)
	if err := errors.Join(verr, terr); err != nil {
		return nil, nil, err
	}
	return cfg, table, nil
}
