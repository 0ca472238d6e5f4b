// The first steps of the sandbox tour (docs/getting-started/tour.md) with
// openapi-fetch and the types openapi-typescript generates from the gateway's
// v2 document (gateway-v2.d.ts, beside this file). tsc --strict accepts it:
// the result of a success answer is typed, without a cast.
import createClient from "openapi-fetch";
import type { components, paths } from "./gateway-v2";

type Account = components["schemas"]["Account"];
type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];

// why says what the gateway said when it refused a call.
function why(error: ErrorEnvelope): Error {
  return new Error(`${error.responseCode.id}: ${error.responseCode.formattedClientMessage}`);
}

export async function tour(baseUrl: string): Promise<string[]> {
  const api = createClient<paths>({ baseUrl });
  const lines: string[] = [];

  const list = await api.GET("/v2/accounts", { params: { query: { limit: 2, offset: 0 } } });
  if (list.error) throw why(list.error);
  const accounts: Account[] = list.data.result;
  const page = list.data.page;
  if (page) lines.push(`accounts ${page.start + 1} to ${page.start + page.size} of ${page.total ?? "?"}; next: ${page.next ?? ""}`);
  for (const a of accounts) lines.push(`  ${a.id ?? ""} ${a.name ?? ""}`);

  const created = await api.POST("/v2/accounts", { body: { name: "Acme", totalAssets: 1.1 } });
  if (created.error) throw why(created.error);
  const id: string = created.data.result.id;
  lines.push(`created ${id}`);

  const updated = await api.PUT("/v2/accounts/{accountId}", { params: { path: { accountId: id } }, body: { rating: "Hot" } });
  if (updated.error) throw why(updated.error);
  const got = await api.GET("/v2/accounts/{accountId}", { params: { path: { accountId: id } } });
  if (got.error) throw why(got.error);
  const a: Account = got.data.result;
  lines.push(`read back: ${a.name ?? ""}, total assets ${a.totalAssets ?? ""}, rating ${a.rating ?? ""}`);

  const keys = await api.GET("/v2/settings/model/{objectName}", { params: { path: { objectName: "Account" } } });
  if (keys.error) throw why(keys.error);
  const keyMap: Record<string, string> = keys.data.result;
  lines.push(`key map: ${Object.keys(keyMap).length} fields; Total_Assets__c is ${keyMap["Total_Assets__c"] ?? ""}`);

  const mapped = await api.POST("/v2/settings/model/{objectName}", {
    params: { path: { objectName: "Account" } },
    body: { name: "Acme", totalAssets: 1.1 },
  });
  if (mapped.error) throw why(mapped.error);
  lines.push(`in the backend's names: ${JSON.stringify(mapped.data.result)}`);
  return lines;
}
