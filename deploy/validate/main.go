// Command validate checks rendered Kubernetes manifests (the multi-document
// YAML of `helm template`) before they reach a cluster: every document is
// decoded strictly into its Kubernetes API type, so an unknown or misplaced
// field, an unknown kind or a wrong value type fails; every null value is
// refused (read from the YAML itself: the API types cannot see it); and the
// gateway's deployment rules are checked across documents, among them that
// no Ingress or HTTPRoute leads to the admin listener.
//
//	helm template gw deploy/helm/gateway -f deploy/helm/gateway/ci/default-values.yaml |
//	  (cd deploy/validate && go run . -config ../helm/gateway/files/config.yaml)
//
// With -config FILE, the config.yaml key of the ConfigMap must equal FILE
// (trailing newlines aside): the chart then deploys exactly that file, its
// copy of the tested config.yaml (deploy/ci.sh checks the copy). With
// -rules FILE, the one PrometheusRule's spec must equal that rule file
// (deploy/prometheus/rules.yaml, which promtool tests). It prints one line
// per document and exits 1 listing every problem.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "file the ConfigMap's config.yaml must equal (empty: not checked)")
	rulesPath := fs.String("rules", "", "rule file the one PrometheusRule's spec must equal (empty: not checked)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "validate: reading stdin: %v\n", err)
		return 1
	}
	objs, err := Validate(data)
	if err == nil && *configPath != "" {
		err = checkConfig(objs, *configPath)
	}
	if err == nil && *rulesPath != "" {
		err = checkRuleFile(objs, *rulesPath)
	}
	for _, o := range objs {
		fmt.Fprintf(stdout, "ok  %-40s %s/%s\n", o.Source, o.Kind, o.Name)
	}
	if err != nil {
		fmt.Fprintf(stderr, "validate: manifests are not valid:\n%v\n", err)
		return 1
	}
	if len(objs) == 0 {
		fmt.Fprintln(stderr, "validate: no documents on stdin")
		return 1
	}
	return 0
}

// Validate checks a multi-document stream: no null anywhere, every
// document decoded strictly into its API type and, when all decode, the
// deployment rules across them. It returns the decoded objects and every
// problem joined.
func Validate(stream []byte) ([]Object, error) {
	objs, err := Decode(stream)
	err = errors.Join(CheckNulls(Split(stream)), err)
	if err == nil {
		err = CheckRules(objs)
	}
	return objs, err
}

// ErrConfigDiffers is returned when the rendered ConfigMap does not hold the
// expected config.yaml.
var ErrConfigDiffers = errors.New("the ConfigMap's config.yaml differs from the expected file")

func checkConfig(objs []Object, path string) error {
	want, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	found := 0
	for _, o := range objs {
		cm, ok := o.Value.(*corev1.ConfigMap)
		if !ok {
			continue
		}
		got, ok := cm.Data["config.yaml"]
		if !ok {
			continue
		}
		found++
		if !bytes.Equal(bytes.TrimRight([]byte(got), "\n"), bytes.TrimRight(want, "\n")) {
			return fmt.Errorf("ConfigMap %s: %w %s", cm.Name, ErrConfigDiffers, path)
		}
	}
	if found != 1 {
		return fmt.Errorf("%w: want one ConfigMap with a config.yaml key, found %d", ErrConfigDiffers, found)
	}
	return nil
}
