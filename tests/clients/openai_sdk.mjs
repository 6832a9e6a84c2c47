// The official Node `openai` SDK against /v1/responses: create, the stream helpers, parse with zod,
// retrieve / delete / inputItems paging, a tool round trip, compaction.
import OpenAI, { NotFoundError } from "openai";
import { zodResponsesFunction, zodTextFormat } from "openai/helpers/zod";
import { z } from "zod";

import { API_KEY, BASE_URL, MODEL, run } from "./run.mjs";

const client = new OpenAI({ baseURL: BASE_URL, apiKey: API_KEY, maxRetries: 0, timeout: 20_000 });

const WEATHER = {
  type: "function",
  name: "get_weather",
  description: "Current weather for a city",
  strict: true,
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
    required: ["city", "unit"],
    additionalProperties: false,
  },
};

const Forecast = z.object({ city: z.string(), days: z.number().int(), sunny: z.boolean() });

await run({
  async create() {
    const response = await client.responses.create({ model: MODEL, input: "Hello from Node" });
    return { status: response.status, output_text: response.output_text, id: response.id };
  },

  async stream_helpers() {
    const deltas = [];
    const events = [];
    const stream = client.responses
      .stream({ model: MODEL, input: "Count from 1 to 5." })
      .on("response.output_text.delta", (event) => deltas.push(event.delta));
    for await (const event of stream) events.push(event.type);
    const final = await stream.finalResponse();
    return { deltas, events, status: final.status, output_text: final.output_text };
  },

  async stream_tool_call() {
    const argumentDeltas = [];
    const stream = client.responses
      .stream({ model: MODEL, input: "What is the weather in Paris?", tools: [WEATHER] })
      .on("response.function_call_arguments.delta", (event) => argumentDeltas.push(event.delta));
    const final = await stream.finalResponse();
    const call = final.output[0];
    return { argument_deltas: argumentDeltas, type: call.type, name: call.name, arguments: call.arguments,
             status: call.status };
  },

  async parse_zod_format() {
    const response = await client.responses.parse({
      model: MODEL, input: "Forecast for Paris", text: { format: zodTextFormat(Forecast, "forecast") },
    });
    return { output_parsed: response.output_parsed, output_text: response.output_text,
             format: response.text.format };
  },

  async parse_zod_tool() {
    const tool = zodResponsesFunction({
      name: "get_forecast", description: "Forecast for a city", parameters: Forecast,
    });
    const response = await client.responses.parse({ model: MODEL, input: "Forecast please", tools: [tool] });
    const call = response.output[0];
    return { type: call.type, name: call.name, parsed_arguments: call.parsed_arguments };
  },

  async tool_round_trip() {
    // The SDK's usual loop: send the output items back as returned, then the tool's result.
    const first = await client.responses.create({
      model: MODEL, input: [{ role: "user", content: "Weather in Paris?" }], tools: [WEATHER],
    });
    const call = first.output.find((item) => item.type === "function_call");
    const second = await client.responses.create({
      model: MODEL,
      tools: [WEATHER],
      input: [
        { role: "user", content: "Weather in Paris?" },
        ...first.output,
        { type: "function_call_output", call_id: call.call_id, output: "18 C and sunny" },
      ],
    });
    // And the same turn through the stored chain.
    const chained = await client.responses.create({
      model: MODEL, previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "18 C and sunny" }],
    });
    return { call: { name: call.name, call_id: call.call_id, arguments: call.arguments },
             replayed: second.output_text, chained: chained.output_text,
             chained_previous: chained.previous_response_id, first_id: first.id };
  },

  async retrieve_delete_input_items() {
    const input = [
      { role: "user", content: "first" },
      { role: "assistant", content: "second" },
      { role: "user", content: "third" },
    ];
    const created = await client.responses.create({ model: MODEL, input });
    const retrieved = await client.responses.retrieve(created.id);
    const page = await client.responses.inputItems.list(created.id, { limit: 2, order: "asc" });
    const paged = [];
    for await (const item of client.responses.inputItems.list(created.id, { limit: 1, order: "asc" })) {
      paged.push(item.content[0].text);
    }
    const deleted = await client.responses.delete(created.id);
    let afterDelete = null;
    try {
      await client.responses.retrieve(created.id);
    } catch (error) {
      afterDelete = { not_found: error instanceof NotFoundError, status: error.status, code: error.code };
    }
    return {
      same_id: retrieved.id === created.id, retrieved_text: retrieved.output_text,
      first_page: { count: page.data.length, has_more: page.has_more }, paged,
      deleted: deleted ?? null, after_delete: afterDelete,
    };
  },

  async compact() {
    const first = await client.responses.create({ model: MODEL, input: "Remember: the code word is kiwi." });
    const compacted = await client.responses.compact({ model: MODEL, previous_response_id: first.id });
    const next = await client.responses.create({
      model: MODEL, input: [...compacted.output, { role: "user", content: "And now?" }],
    });
    return { object: compacted.object, types: compacted.output.map((item) => item.type),
             next_status: next.status, next_text: next.output_text };
  },
});
