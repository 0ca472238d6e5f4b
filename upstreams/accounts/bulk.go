package accounts

import (
	"context"
	"encoding/json"
)

// deletePage is how many accounts DeleteAll lists per round.
const deletePage = 200

// DeleteAll deletes every account: B1 has no bulk delete, so it lists a page,
// deletes its accounts one by one and lists again until the list is empty.
// It stops at the first failure and returns how many were deleted before it.
// An account that is still listed after its delete succeeded is reported as
// KindInvalid instead of being deleted forever.
func (c *Client) DeleteAll(ctx context.Context) (deleted int, err error) {
	done := make(map[string]bool)
	for {
		list, err := c.List(ctx, &Page{Limit: deletePage, Offset: 0})
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

// recordIDs reads the Id member of each record of a JSON array.
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
		if err := json.Unmarshal(it, &rec); err != nil || rec.ID == "" {
			return nil, invalid("listed account has no Id", err)
		}
		ids = append(ids, rec.ID)
	}
	return ids, nil
}
