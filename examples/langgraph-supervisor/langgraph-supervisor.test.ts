/**
 * LangGraph.js supervisor (examples/langgraph-supervisor/main.ts: @langchain/langgraph 1.7.3,
 * @langchain/langgraph-supervisor 1.1.3, @langchain/openai 1.4.6) behind `symtrace record` /
 * `replay`: a supervisor with hand-offs to two ReAct agents with in-process tools; each hand-back
 * carries a fresh uuid. Against the seeded stochastic test model.
 */
import { node } from "../../lib/testing/framework-harness";
import { frameworkSuite } from "../suite";

frameworkSuite(
  {
    name: "langgraph-supervisor",
    command: node("examples/langgraph-supervisor/main.ts"),
    agents: { supervisor: "You are a team supervisor", research_expert: "world class researcher", math_expert: "You are a math expert" },
    tools: ["web_search", "add", "multiply"],
  },
  { seed: 21 },
);
