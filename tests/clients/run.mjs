// Runs named scenarios against the app and prints one JSON object on stdout: {scenario: result} where a
// result is what the scenario returned, or {"error": {name, message, status}} when it threw. One scenario's
// failure does not hide the others; tests/clients/test_clients_node.py asserts on each entry.
//
// The server comes from the environment: OPENRESPONSES_BASE_URL (".../v1") and OPENRESPONSES_API_KEY.

export const BASE_URL = process.env.OPENRESPONSES_BASE_URL;
export const API_KEY = process.env.OPENRESPONSES_API_KEY;
export const MODEL = "openresponses-test";

if (!BASE_URL || !API_KEY) {
  console.error("set OPENRESPONSES_BASE_URL and OPENRESPONSES_API_KEY");
  process.exit(2);
}

function describe(error) {
  return {
    name: error?.constructor?.name ?? typeof error,
    message: String(error?.message ?? error).slice(0, 2000),
    status: error?.status ?? error?.statusCode ?? null,
    // AI SDK errors carry the server's answer; the openai SDK's carry the parsed error envelope.
    body: error?.responseBody ?? (error?.error ? JSON.stringify(error.error) : null),
  };
}

/** Runs `scenarios` ({name: async () => result}) one after another, or only those named on the command line. */
export async function run(scenarios) {
  const wanted = process.argv.slice(2);
  const results = {};
  for (const [name, scenario] of Object.entries(scenarios)) {
    if (wanted.length && !wanted.includes(name)) continue;
    try {
      results[name] = await scenario();
    } catch (error) {
      results[name] = { error: describe(error) };
    }
  }
  process.stdout.write(JSON.stringify(results) + "\n");
}
