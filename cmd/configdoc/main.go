// Command configdoc writes the configuration reference generated from the
// config types: docs/reference/configuration.md, docs/reference/
// config.schema.json and the generated list of docs/operations/reload.md
// (see gateway/config/reference). Run it from anywhere in the module after
// changing a config type, its doc comments, its tags or its defaults:
//
//	go run ./cmd/configdoc
//
// go generate ./gateway/config runs it too.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/restgate/gateway/gateway/config/reference"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "configdoc: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := reference.ModuleRoot(".")
	if err != nil {
		return err
	}
	files, err := reference.Generate(root)
	if err != nil {
		return err
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", name)
	}
	return nil
}
