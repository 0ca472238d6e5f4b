package routes

import (
	"github.com/restgate/gateway/gateway/config"
)

// Check is a check of a loaded configuration beyond Validate and the route
// table's, such as the sandbox check of a binary built without it; its
// errors read "key.path: problem".
type Check func(*config.Config) []error

// Load reads, validates and tables the config file at path. It is the one
// way the gateway reads configuration: `gateway serve` at start, every
// reload and `gateway check` call it, and the gateway is then assembled from
// the returned config and table (app.Build) without building the table
// again. Every problem of the file (unknown keys, values of the wrong type,
// variables not set), of its validation, of its route table and of checks
// is reported in one config.ProblemList, each with its key path and line.
func Load(path string, getenv func(string) string, checks ...Check) (*config.Config, *Table, error) {
	f, err := config.Read(path, getenv)
	if err != nil {
		return nil, nil, err
	}
	return check(f, checks)
}

// Parse is Load of the file's bytes, already read by a caller that needs
// them too (a reload compares them with the ones it last loaded).
func Parse(data []byte, getenv func(string) string, checks ...Check) (*config.Config, *Table, error) {
	f, err := config.Decode(data, getenv)
	if err != nil {
		return nil, nil, err
	}
	return check(f, checks)
}

// check validates the decoded file, builds its table and runs checks,
// reporting every problem at once.
func check(f *config.File, checks []Check) (*config.Config, *Table, error) {
	errs := []error{config.Validate(f.Config)}
	table, terr := Build(f.Config)
	errs = append(errs, terr)
	for _, check := range checks {
		errs = append(errs, check(f.Config)...)
	}
	if err := f.Report(errs...); err != nil {
		return nil, nil, err
	}
	return f.Config, table, nil
}
