package accounts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/accounts"
)

// Error codes of one bulk-update item.
const (
	// ItemInvalid: the element is not a JSON object (400).
	ItemInvalid = "INVALID_ITEM"
	// ItemMissingID: the object has no id, or an empty or null one (400).
	ItemMissingID = "MISSING_ID"
	// ItemInvalidID: the id is not 15 or 18 letters and digits (400).
	ItemInvalidID = "INVALID_ID"
	// ItemDuplicateID: an earlier item of the same request has this id, in
	// its 15- or 18-character form (400); only the first one is applied, so
	// the outcome never depends on which concurrent update lands last.
	ItemDuplicateID = "DUPLICATE_ID"
	// ItemNotFound: the account controller has no such account (404).
	ItemNotFound = "NOT_FOUND"
	// ItemRejected: the account controller refused the update with another
	// 4xx, such as a field value of the wrong type (its status).
	ItemRejected = "REJECTED"
	// ItemCalloutFailed: the account controller failed, timed out or its
	// breaker is open (502, 504, 503).
	ItemCalloutFailed = "CALLOUT_FAILED"
)

// itemResult is the outcome of one element of a bulk update, at its
// position in the input.
type itemResult struct {
	// ID is the id as the client sent it; omitted when it sent none.
	ID         string      `json:"id,omitempty"`
	StatusCode int         `json:"statusCode"`
	Errors     []itemError `json:"errors,omitempty"`
}

type itemError struct {
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
}

// bulkItem is one element ready to send: its id and the fields to change.
type bulkItem struct {
	id     string
	fields []byte
}

// bulkUpdate applies a JSON array of partial account updates, each with its
// id. The request succeeds (200) whenever its body is an array of at most
// MaxBulkItems elements; each element then gets its own statusCode and
// errors, in input order, so one bad item never hides the others' outcome.
// A body that is not such an array, or names a field the model does not
// know, is JSON_SERIALIZATION_FAILED 400 and nothing is sent.
func (h *collection) bulkUpdate(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := call.ReadInput(r, c, h.opts.MaxDepth)
	if err != nil {
		return call.Result{}, err
	}
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil || elems == nil {
		return call.Result{}, notAccepted("the body must be a JSON array of accounts, each with its id")
	}
	if len(elems) > h.opts.MaxBulkItems {
		return call.Result{}, notAccepted(fmt.Sprintf("a bulk update takes at most %d accounts, not %d", h.opts.MaxBulkItems, len(elems)))
	}
	results := make([]itemResult, len(elems))
	items := make([]bulkItem, len(elems))
	seen := make(map[string]bool, len(elems))
	for i, e := range elems {
		items[i], results[i] = prepareItem(e, seen)
	}
	h.runUpdates(r.Context(), items, results)
	out, err := json.Marshal(results)
	if err != nil {
		return call.Result{}, err
	}
	return h.fixed.result(c, http.StatusOK, out), nil
}

// prepareItem checks one element. A result with a status is final; else
// the item is to be sent.
func prepareItem(elem json.RawMessage, seen map[string]bool) (bulkItem, itemResult) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(elem, &obj) != nil || obj == nil {
		return bulkItem{}, failed("", http.StatusBadRequest, ItemInvalid, "the item must be a JSON object")
	}
	rawID, has := obj[idField]
	delete(obj, idField)
	var id string
	if has && string(rawID) != "null" && json.Unmarshal(rawID, &id) != nil {
		return bulkItem{}, failed("", http.StatusBadRequest, ItemInvalidID, "the id must be a string")
	}
	switch {
	case id == "":
		return bulkItem{}, failed("", http.StatusBadRequest, ItemMissingID, "the item has no id")
	case !accounts.ValidID(id):
		return bulkItem{}, failed(id, http.StatusBadRequest, ItemInvalidID, "the id must be 15 or 18 letters and digits")
	case seen[id[:15]]:
		return bulkItem{}, failed(id, http.StatusBadRequest, ItemDuplicateID, "an earlier item has the same id")
	}
	seen[id[:15]] = true
	fields, err := json.Marshal(obj)
	if err != nil { // values are RawMessages of a valid document
		return bulkItem{}, failed(id, http.StatusBadRequest, ItemInvalid, "the item is not valid JSON")
	}
	return bulkItem{id: id, fields: fields}, itemResult{ID: id}
}

// runUpdates sends the prepared items, at most BulkConcurrency at once, and
// fills their results.
func (h *collection) runUpdates(ctx context.Context, items []bulkItem, results []itemResult) {
	sem := make(chan struct{}, h.opts.BulkConcurrency)
	var wg sync.WaitGroup
	for i := range items {
		if results[i].StatusCode != 0 {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			err := h.client.Update(ctx, items[i].id, items[i].fields)
			results[i] = updateOutcome(items[i].id, err)
		})
	}
	wg.Wait()
}

// updateOutcome turns one update's error into its item result. Backend
// texts are not copied: they name internal fields and belong to the log.
func updateOutcome(id string, err error) itemResult {
	if err == nil {
		return itemResult{ID: id, StatusCode: http.StatusOK}
	}
	status := upstreams.StatusFor(err)
	ue := upstreams.AsError(err)
	switch {
	case ue != nil && ue.Kind == upstreams.KindRejected && status == http.StatusNotFound:
		return failed(id, status, ItemNotFound, "no account has this id")
	case ue != nil && ue.Kind == upstreams.KindRejected:
		return failed(id, status, ItemRejected, fmt.Sprintf("the account controller refused the update (status %d)", status))
	}
	return failed(id, status, ItemCalloutFailed, "the account controller could not apply the update")
}

func failed(id string, status int, code, msg string) itemResult {
	return itemResult{ID: id, StatusCode: status, Errors: []itemError{{ErrorCode: code, Message: msg}}}
}
