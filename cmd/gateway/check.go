package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/restgate/gateway/gateway/cache"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
)

// check prints the route table of a valid config (exit 0) or every problem,
// one per line as "key.path (line N): problem", in file order (exit 1). An
// upstream whose url is "sandbox" is a problem in a binary built without the
// sandbox (-tags nosandbox).
func check(path string, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, table, err := routes.Load(path, getenv, sandboxCheck(sandboxBuilt), dataDirCheck())
	if err != nil {
		printProblems(stderr, path, err)
		return 1
	}
	printTable(stdout, table)
	printTieBreaks(stdout, table)
	printCache(stdout, cfg, table)
	return 0
}

// printProblems writes every problem of err, the config file at path's.
func printProblems(w io.Writer, path string, err error) {
	lines := config.Problems(err)
	fmt.Fprintf(w, "%s is not valid (%s):\n", path, count(len(lines), "problem"))
	for _, line := range lines {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// printTieBreaks lists the derived names of declared models that several
// fields claimed, and what each field got. Types known only from the data
// upstream's describe are reported in the log when first mapped.
func printTieBreaks(w io.Writer, t *routes.Table) {
	var lines []string
	for name, m := range t.Models {
		for _, tb := range m.TieBreaks {
			lines = append(lines, "  models."+name+" "+tb)
		}
	}
	if len(lines) == 0 {
		return
	}
	sort.Strings(lines)
	fmt.Fprintln(w, "\nTie-breaks of colliding derived names (override with models.<type>.versions.<version>.mapKeys):")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

func printTable(w io.Writer, t *routes.Table) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "METHOD\tURI\tKIND\tUPSTREAM\tVERSIONS")
	for _, r := range t.Rows() {
		up := r.Upstream
		if up == "" {
			up = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Method, r.Template, r.Kind, up, strings.Join(r.Versions, ","))
	}
	tw.Flush()
}

// printCache lists the cached routes: their ttl, scope and stale windows,
// and the writes that invalidate their answers (gateway/cache's Plan).
func printCache(w io.Writer, cfg *config.Config, t *routes.Table) {
	plan := cache.NewPlan(cfg, t)
	var cached []*cache.RoutePlan
	for _, rp := range plan.Routes() {
		if rp.Cached {
			cached = append(cached, rp)
		}
	}
	if len(cached) == 0 {
		return
	}
	fmt.Fprintln(w, "\nCached GET answers (routes[].cache) and the writes that invalidate them:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  URI\tTTL\tSCOPE\tSTALE\tINVALIDATED BY")
	for _, rp := range cached {
		scope := "user"
		if rp.Policy.Shared {
			scope = "shared"
		}
		stale := "-"
		if p := rp.Policy; p.StaleWhileRevalidate > 0 || p.StaleIfError > 0 {
			stale = fmt.Sprintf("swr %s, sie %s", p.StaleWhileRevalidate, p.StaleIfError)
		}
		by := strings.Join(plan.InvalidatedBy(rp), ", ")
		if by == "" {
			by = "- (purge, reload, ttl)"
		}
		ttl := rp.Policy.TTL.String()
		if rp.Policy.NotFoundTTL > 0 {
			ttl += " (404: " + rp.Policy.NotFoundTTL.String() + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", rp.Route.Template, ttl, scope, stale, by)
	}
	tw.Flush()
}
