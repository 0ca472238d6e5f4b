// Command schemagen writes the JSON schemas kubeconform checks manifests
// against, from documents the Go module proxy serves (nothing else can be
// downloaded in CI): the OpenAPI v3 documents of k8s.io/kubernetes
// (api/openapi-spec/v3) at each Kubernetes version, and the
// CustomResourceDefinitions of other modules (the Gateway API's HTTPRoute,
// the Prometheus Operator's ServiceMonitor and PrometheusRule).
//
//	go run ./schemagen -out DIR -kubernetes 1.29.6,1.37.2 \
//	  -crd sigs.k8s.io/gateway-api@v1.6.3/config/crd/standard/gateway.networking.k8s.io_httproutes.yaml
//
// With -out, it writes DIR/v<version>-standalone-strict/<kind>-<group>-<version>.json
// for every kind of every version, the CRDs' kinds included (their
// metadata checked by that version's ObjectMeta): the layout kubeconform
// reads with -schema-location DIR -strict -kubernetes-version <version>.
// The schemas are strict as the API server's strict field validation is
// (an unknown field is an error) and refuse null wherever the API does not
// allow it, which the public schema sets do not all do. DIR is replaced
// whole once everything is written, so an interrupted run leaves the
// previous one. Modules are fetched with `go mod download` into the module
// cache, so a second run is offline.
//
// With -values-schema FILE (a chart's values.schema.json) and one version,
// it rewrites the file's "definitions": the strict schemas of that
// version's Kubernetes objects the file references as
// #/definitions/io.k8s.... With -check it only reports whether the file is
// up to date, for CI.
//
//	go run ./schemagen -values-schema ../helm/gateway/values.schema.json -kubernetes 1.37.2
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, goModDownload))
}

// Resolver returns the directory holding a module's files at a version.
type Resolver func(module, version string) (string, error)

// ModuleFile is a file of a module at a version.
type ModuleFile struct {
	Module, Version, Path string
}

// ParseModuleFile reads MODULE@VERSION/PATH.
func ParseModuleFile(s string) (ModuleFile, error) {
	module, rest, ok := strings.Cut(s, "@")
	version, path, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || module == "" || version == "" || path == "" {
		return ModuleFile{}, fmt.Errorf("%q: want MODULE@VERSION/PATH", s)
	}
	return ModuleFile{Module: module, Version: version, Path: path}, nil
}

func run(args []string, stdout, stderr io.Writer, resolve Resolver) int {
	fs := flag.NewFlagSet("schemagen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory to write (replaced whole)")
	versions := fs.String("kubernetes", "", "comma-separated Kubernetes versions (k8s.io/kubernetes module versions without the v), e.g. 1.29.6,1.37.2")
	var crds []ModuleFile
	fs.Func("crd", "MODULE@VERSION/PATH of a CustomResourceDefinition file (repeatable)", func(s string) error {
		f, err := ParseModuleFile(s)
		crds = append(crds, f)
		return err
	})
	valuesSchema := fs.String("values-schema", "", "a chart's values.schema.json whose Kubernetes definitions to rewrite (one -kubernetes version)")
	check := fs.Bool("check", false, "with -values-schema: only report whether the file is up to date")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *valuesSchema != "" {
		if *out != "" || len(crds) > 0 || *versions == "" || strings.Contains(*versions, ",") {
			fmt.Fprintln(stderr, "schemagen: -values-schema takes one -kubernetes version, and no -out or -crd")
			return 2
		}
		return runValuesSchema(*valuesSchema, *versions, *check, stdout, stderr, resolve)
	}
	if *out == "" || *versions == "" {
		fmt.Fprintln(stderr, "schemagen: -out and -kubernetes are required")
		return 2
	}
	counts, err := Generate(*out, strings.Split(*versions, ","), crds, resolve)
	if err != nil {
		fmt.Fprintf(stderr, "schemagen: %v\n", err)
		return 1
	}
	for _, v := range strings.Split(*versions, ",") {
		fmt.Fprintf(stdout, "v%s: %d schemas\n", v, counts[v])
	}
	return 0
}

func runValuesSchema(file, version string, check bool, stdout, stderr io.Writer, resolve Resolver) int {
	defs, err := loadVersion(version, resolve)
	if err == nil {
		var doc, updated []byte
		if doc, err = os.ReadFile(file); err == nil {
			if updated, err = UpdateValuesSchema(doc, defs); err == nil {
				switch {
				case bytes.Equal(doc, updated):
					fmt.Fprintf(stdout, "%s: up to date with Kubernetes %s\n", file, version)
				case check:
					fmt.Fprintf(stderr, "schemagen: %s: its Kubernetes definitions are not those of %s (or it is not formatted): run\n"+
						"  (cd deploy/validate && go run ./schemagen -values-schema %s -kubernetes %s)\n", file, version, file, version)
					return 1
				default:
					err = os.WriteFile(file, updated, 0o644)
					fmt.Fprintf(stdout, "%s: definitions of Kubernetes %s written\n", file, version)
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "schemagen: %v\n", err)
		return 1
	}
	return 0
}

// loadVersion reads the OpenAPI documents of one Kubernetes version.
func loadVersion(version string, resolve Resolver) (*Definitions, error) {
	module, err := resolve("k8s.io/kubernetes", "v"+version)
	if err != nil {
		return nil, err
	}
	return LoadDefinitions(filepath.Join(module, "api", "openapi-spec", "v3"))
}

// Generate writes the schemas of every version (each with the CRDs' kinds)
// into out, replacing it, and returns how many it wrote per version.
func Generate(out string, versions []string, crds []ModuleFile, resolve Resolver) (map[string]int, error) {
	var crdData [][]byte
	for _, f := range crds {
		dir, err := resolve(f.Module, f.Version)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return nil, err
		}
		crdData = append(crdData, b)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), filepath.Base(out)+".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	counts := map[string]int{}
	for _, v := range versions {
		n, err := generateVersion(filepath.Join(tmp, "v"+v+"-standalone-strict"), v, crdData, resolve)
		if err != nil {
			return nil, fmt.Errorf("k8s.io/kubernetes@v%s: %w", v, err)
		}
		counts[v] = n
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	return counts, os.Rename(tmp, out)
}

func generateVersion(dir, version string, crds [][]byte, resolve Resolver) (int, error) {
	defs, err := loadVersion(version, resolve)
	if err != nil {
		return 0, err
	}
	kinds, err := defs.Kinds()
	if err != nil {
		return 0, err
	}
	for _, data := range crds {
		k, err := CRDKinds(data, defs)
		if err != nil {
			return 0, err
		}
		kinds = append(kinds, k...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	written := map[string]GVK{}
	for _, k := range kinds {
		name := k.GVK.FileName()
		if other, dup := written[name]; dup {
			return 0, fmt.Errorf("%s %s and %s %s share the file %s", other.APIVersion(), other.Kind, k.GVK.APIVersion(), k.GVK.Kind, name)
		}
		written[name] = k.GVK
		b, err := json.Marshal(k.Schema)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return 0, err
		}
	}
	return len(kinds), nil
}

// goModDownload fetches a module into the module cache (from GOPROXY,
// checked against go.sum's database like any module) and returns its
// directory.
func goModDownload(module, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(b, &info); jerr != nil && err == nil {
		err = jerr
	}
	if info.Error != "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", module, version, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	if info.Dir == "" {
		return "", errors.New("go mod download " + module + "@" + version + ": no directory")
	}
	return info.Dir, nil
}
