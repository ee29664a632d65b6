/** Test support: the seeded stochastic local model server (see ./server.ts). */
export { startStochasticModel, seededRng, type StochasticModel, type StochasticModelOptions, type ServedRequest } from "./server";
export { decide, taskOf, argumentsFor, STOCHASTIC_MODEL, TEST_MODEL_TAG, type Decision, type Rng } from "./policy";
export type { Conversation, Turn, OfferedTool, ToolChoice } from "./conversation";
