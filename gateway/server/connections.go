package server

// fdReserve is the file descriptors kept for everything but the API's
// client connections and their upstream connections: the listeners, the
// log, the sandbox's database, spooled uploads, DNS, the call log's and the
// cluster store's connections.
const fdReserve = 128

// connectionCap is the API listener's connection cap: configured, or less
// when the open-files limit cannot hold that many client connections, each
// with an upstream connection of its own, beside the admin listener's
// admin connections and fdReserve. At least 1. limit 0 (unknown) keeps
// configured.
func connectionCap(configured, admin int, limit uint64) int {
	if limit == 0 {
		return configured
	}
	room := (int64(min(limit, 1<<40)) - int64(admin) - fdReserve) / 2
	return int(max(min(int64(configured), room), 1))
}
