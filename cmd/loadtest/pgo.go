package main

// targetGatewayNoPGO is the gateway built without the profile
// cmd/gateway/default.pgo (-nopgo, go build -pgo=off): the gateway target
// is built with it, as the image is, so the two side by side are what the
// profile buys.
const targetGatewayNoPGO = "gateway-nopgo"
