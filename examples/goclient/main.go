// Command goclient walks the first steps of the sandbox tour
// (docs/getting-started/tour.md) with a client generated from the gateway's
// v2 OpenAPI document by oapi-codegen (package gateway): it lists two
// accounts, creates one, reads it back, changes a field, and maps a record
// to the backend's names.
//
//	go run ./examples/goclient -url https://127.0.0.1:8443 -insecure
//
// The client in gateway/ is generated, never edited: go generate in this
// folder writes it again from openapi_v2.json (see generate.go).
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/restgate/gateway/examples/goclient/gateway"
)

func main() {
	url := flag.String("url", "https://127.0.0.1:8443", "the gateway's address")
	insecure := flag.Bool("insecure", false, "accept the gateway's certificate unchecked (the self-signed one of tls.mode auto)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	httpClient := &http.Client{}
	if *insecure {
		httpClient.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} // #nosec G402 -- asked for by -insecure
	}
	if err := tour(ctx, *url, httpClient, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "goclient:", err)
		os.Exit(1)
	}
}

// tour walks the first steps against the gateway at url, printing what it
// sees to out.
func tour(ctx context.Context, url string, hc *http.Client, out io.Writer) error {
	api, err := gateway.NewClientWithResponses(url, gateway.WithHTTPClient(hc))
	if err != nil {
		return err
	}

	limit, offset := int32(2), int32(0)
	list, err := api.ListAccountsWithResponse(ctx, &gateway.ListAccountsParams{Limit: &limit, Offset: &offset})
	if err != nil {
		return fmt.Errorf("listing accounts: %w", err)
	}
	if list.JSON200 == nil {
		return fmt.Errorf("listing accounts: %w", refused(list.StatusCode(), list.Body))
	}
	if page := list.JSON200.Page; page != nil {
		fmt.Fprintf(out, "accounts %d to %d of %d; next: %s\n", page.Start+1, page.Start+page.Size, deref(page.Total), deref(page.Next))
	}
	for _, a := range list.JSON200.Result {
		fmt.Fprintf(out, "  %s %s\n", deref(a.Id), deref(a.Name))
	}

	name, assets := "Acme", 1.10
	created, err := api.CreateAccountWithResponse(ctx, gateway.AccountInput{Name: &name, TotalAssets: &assets})
	if err != nil {
		return fmt.Errorf("creating an account: %w", err)
	}
	if created.JSON201 == nil {
		return fmt.Errorf("creating an account: %w", refused(created.StatusCode(), created.Body))
	}
	id := created.JSON201.Result.Id
	fmt.Fprintf(out, "created %s\n", id)

	rating := "Hot"
	updated, err := api.UpdateAccountWithResponse(ctx, id, gateway.AccountInput{Rating: &rating})
	if err != nil {
		return fmt.Errorf("updating %s: %w", id, err)
	}
	if updated.JSON200 == nil {
		return fmt.Errorf("updating %s: %w", id, refused(updated.StatusCode(), updated.Body))
	}
	got, err := api.GetAccountWithResponse(ctx, id)
	if err != nil {
		return fmt.Errorf("reading %s: %w", id, err)
	}
	if got.JSON200 == nil {
		return fmt.Errorf("reading %s: %w", id, refused(got.StatusCode(), got.Body))
	}
	a := got.JSON200.Result
	fmt.Fprintf(out, "read back: %s, total assets %v, rating %s\n", deref(a.Name), deref(a.TotalAssets), deref(a.Rating))

	missing, err := api.GetAccountWithResponse(ctx, "001000000000000AAA")
	if err != nil {
		return fmt.Errorf("reading an unknown account: %w", err)
	}
	if missing.JSON404 == nil {
		return fmt.Errorf("reading an unknown account: status %d, not 404", missing.StatusCode())
	}
	fmt.Fprintf(out, "an unknown account: %d %s\n", missing.StatusCode(), missing.JSON404.ResponseCode.FormattedClientMessage)

	keys, err := api.GetModelWithResponse(ctx, "Account")
	if err != nil {
		return fmt.Errorf("reading the key map: %w", err)
	}
	if keys.JSON200 == nil {
		return fmt.Errorf("reading the key map: %w", refused(keys.StatusCode(), keys.Body))
	}
	fmt.Fprintf(out, "key map: %d fields; Total_Assets__c is %s\n", len(keys.JSON200.Result), keys.JSON200.Result["Total_Assets__c"])

	mapped, err := api.MapModelRecordWithResponse(ctx, "Account", gateway.MapModelRecordJSONRequestBody{"name": "Acme", "totalAssets": 1.10})
	if err != nil {
		return fmt.Errorf("mapping a record: %w", err)
	}
	if mapped.JSON200 == nil {
		return fmt.Errorf("mapping a record: %w", refused(mapped.StatusCode(), mapped.Body))
	}
	internal, err := json.Marshal(mapped.JSON200.Result)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "in the backend's names: %s\n", internal)
	return nil
}

// refused says what the gateway said when it refused a call: the error
// envelope's code and formattedClientMessage.
func refused(status int, body []byte) error {
	var env gateway.ErrorEnvelope
	if json.Unmarshal(body, &env) == nil && env.ResponseCode.FormattedClientMessage != "" {
		return fmt.Errorf("%d %s: %s", status, env.ResponseCode.Id, env.ResponseCode.FormattedClientMessage)
	}
	return fmt.Errorf("status %d: %.200s", status, body)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
