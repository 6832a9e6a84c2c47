// The Vercel AI SDK (`ai`) against /v1/responses, through one provider named on the command line:
//   node ai_sdk.mjs openai            @ai-sdk/openai's Responses model
//   node ai_sdk.mjs open-responses    @ai-sdk/open-responses
// Scenarios: generateText, streamText, one tool step, the tool loop (stopWhen: stepCountIs) with both,
// structured output. The SDK validates every body and stream chunk with zod, so a deviation fails here.
import { createOpenResponses } from "@ai-sdk/open-responses";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, Output, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

import { API_KEY, BASE_URL, MODEL, run } from "./run.mjs";

const providerName = process.argv[2];
process.argv.splice(2, 1); // the rest names scenarios
const model = {
  openai: () => createOpenAI({ baseURL: BASE_URL, apiKey: API_KEY }).responses(MODEL),
  "open-responses": () =>
    createOpenResponses({ name: "inspector", url: `${BASE_URL}/responses`, apiKey: API_KEY })(MODEL),
}[providerName]?.();
if (!model) {
  console.error(`unknown provider ${providerName}: openai or open-responses`);
  process.exit(2);
}

// The SDK's tool loop runs `execute` itself; the calls are recorded to show what it received.
function weatherTool(calls) {
  return tool({
    description: "Current weather for a city",
    inputSchema: z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]) }),
    execute: async (input) => {
      calls.push(input);
      return `18 degrees ${input.unit} in Paris`;
    },
  });
}

const common = { model, maxRetries: 0 };

function steps(result) {
  return result.steps.map((step) => ({
    finish_reason: step.finishReason,
    tool_calls: step.toolCalls.map((call) => ({ name: call.toolName, input: call.input })),
    tool_results: step.toolResults.map((r) => r.output),
    text: step.text,
  }));
}

await run({
  async generate_text() {
    const result = await generateText({ ...common, prompt: "Hello from the AI SDK" });
    return { text: result.text, finish_reason: result.finishReason, usage: result.usage };
  },

  async stream_text() {
    const result = streamText({ ...common, prompt: "Count from 1 to 5." });
    const chunks = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    return { chunks, text: await result.text, finish_reason: await result.finishReason };
  },

  async tool_step() {
    // One step: the model's call is parsed and executed; nothing is sent back yet.
    const calls = [];
    const result = await generateText({
      ...common, prompt: "What is the weather in Paris?", tools: { get_weather: weatherTool(calls) },
      stopWhen: stepCountIs(1),
    });
    return { steps: steps(result), executed: calls };
  },

  async tool_loop() {
    // Step 2 replays the call (type, call_id, name, arguments only) with its output.
    const calls = [];
    const result = await generateText({
      ...common, prompt: "What is the weather in Paris?", tools: { get_weather: weatherTool(calls) },
      stopWhen: stepCountIs(3),
    });
    return { steps: steps(result), executed: calls, text: result.text };
  },

  async stream_tool_loop() {
    const calls = [];
    const result = streamText({
      ...common, prompt: "What is the weather in Paris?", tools: { get_weather: weatherTool(calls) },
      stopWhen: stepCountIs(3),
      onError() {}, // the error part below throws it; the default would also log it
    });
    const kinds = new Set();
    for await (const part of result.fullStream) {
      if (part.type === "error") throw part.error;
      kinds.add(part.type);
    }
    return { steps: steps({ steps: await result.steps }), executed: calls, text: await result.text,
             parts: [...kinds].sort() };
  },

  async structured_output() {
    const result = await generateText({
      ...common, prompt: "A forecast for Paris",
      output: Output.object({
        schema: z.object({ city: z.string(), days: z.number().int(), sunny: z.boolean() }),
      }),
    });
    return { output: result.output, text: result.text };
  },
});
