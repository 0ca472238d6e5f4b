package dataapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Retirement ranges of Salesforce Platform API versions (REST answers 410
// GONE for a retired one): 7.0 to 30.0 are retired; 31.0 to 40.0 are
// announced for retirement (Summer '28).
const (
	RetiredThrough       = 30.0
	AnnouncedRetiredFrom = 31.0
	AnnouncedRetiredTo   = 40.0
)

// lastBatchWithBinaries is the last API version whose feed posts take binary
// parts; from 36.0 files are uploaded first and attached by id.
const lastBatchWithBinaries = 35.0

// VersionNumber is the number of an API version such as "v62.0" or "62.0";
// false when it is not one.
func VersionNumber(v string) (float64, bool) {
	v = strings.TrimPrefix(v, "v")
	major, minor, ok := strings.Cut(v, ".")
	if !ok || !allDigits(major) || !allDigits(minor) || major == "" || minor == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// BinaryBatch reports whether API version v (such as "v35.0") still takes
// binary parts in a feed-elements batch post: 35.0 and earlier.
func BinaryBatch(v string) bool {
	n, ok := VersionNumber(v)
	return ok && n <= lastBatchWithBinaries
}

// SearchIsBareArray says how a search answer of API version v holds its records:
// a bare array up to 36.0, {"searchRecords": [...]} from 37.0.
func SearchIsBareArray(v string) bool {
	n, ok := VersionNumber(v)
	return ok && n < 37.0
}

// CheckVersion compares the client's configured version with what the org
// offers (GET /services/data) and returns what an operator must hear: the
// version is not offered (every call would fail), it is retired, or it is
// in the range announced for retirement. Nothing to say is nil. A failed
// call is its error.
func (c *Client) CheckVersion(ctx context.Context) ([]string, error) {
	body, err := c.Versions(ctx)
	if err != nil {
		return nil, err
	}
	var list []struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("the version list is not the documented array: %w", err)
	}
	var warnings []string
	want := strings.TrimPrefix(c.version, "v")
	offered := false
	newest := ""
	var newestN float64
	for _, v := range list {
		if v.Version == want {
			offered = true
		}
		if n, ok := VersionNumber(v.Version); ok && n > newestN {
			newest, newestN = v.Version, n
		}
	}
	if !offered {
		warnings = append(warnings, fmt.Sprintf("API version %s is not offered by the backend (newest offered: %s): every data call will fail", c.version, newest))
	}
	if n, _ := VersionNumber(c.version); n <= RetiredThrough {
		warnings = append(warnings, fmt.Sprintf("API version %s is retired by Salesforce (versions up to %.1f answer 410 GONE)", c.version, RetiredThrough))
	} else if n >= AnnouncedRetiredFrom && n <= AnnouncedRetiredTo {
		warnings = append(warnings, fmt.Sprintf("API version %s is in the range announced for retirement (%.1f to %.1f): choose %s or another current version",
			c.version, AnnouncedRetiredFrom, AnnouncedRetiredTo, newest))
	}
	return warnings, nil
}

// Version is the API version the client speaks ("v62.0").
func (c *Client) Version() string { return c.version }
