package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrUnidentified is in the chain of DeleteAll's error when the account
// controller lists accounts without their Id (the original controller
// serialises an account as {"Name": ...}): the contract has no other way to
// name an account, so nothing can be deleted one by one.
var ErrUnidentified = errors.New("the account controller lists accounts without their Id, and the account contract has no other way to name them")

// DeleteAll deletes every account: B1 has no bulk delete, so it lists the
// accounts, deletes them one by one and lists again until the list is
// empty. Before the first delete it checks that every listed account has
// an Id; when one has none it deletes nothing and returns ErrUnidentified.
// It stops at the first failure and returns how many were deleted before
// it. An account that is still listed after its delete succeeded is
// reported as KindInvalid instead of being deleted forever.
func (c *Client) DeleteAll(ctx context.Context) (deleted int, err error) {
	done := make(map[string]bool)
	for {
		list, _, err := c.List(ctx, nil)
		if err != nil {
			return deleted, err
		}
		ids, err := recordIDs(list.JSON)
		list.Release()
		if err != nil {
			return deleted, err
		}
		if len(ids) == 0 {
			return deleted, nil
		}
		for _, id := range ids {
			if done[id] {
				return deleted, invalid("account "+id+" is still listed after it was deleted", nil)
			}
			if err := c.Delete(ctx, id); err != nil {
				return deleted, err
			}
			done[id] = true
			deleted++
		}
	}
}

// recordIDs reads the Id member of each record of a JSON array; a record
// without one is ErrUnidentified.
func recordIDs(body []byte) ([]string, error) {
	items, err := splitArray(body)
	if err != nil {
		return nil, invalid("list is not a JSON array", err)
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		var rec struct {
			ID string `json:"Id"`
		}
		if err := json.Unmarshal(it, &rec); err != nil {
			return nil, invalid("listed account is not a JSON object", err)
		}
		if rec.ID == "" {
			return nil, fmt.Errorf("deleting every account: %w", ErrUnidentified)
		}
		ids = append(ids, rec.ID)
	}
	return ids, nil
}
