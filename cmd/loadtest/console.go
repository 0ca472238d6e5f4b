package main

// targetGatewayNoRecord is the gateway with the console's recording off
// (-console): the gateway target records, as shipped, so the two side by
// side are what the recording costs a request.
const targetGatewayNoRecord = "gateway-norecord"

// noRecordEnv turns the console's recording off (console.record).
func noRecordEnv() []string { return []string{"GATEWAY_CONSOLE_RECORD=false"} }
