/** lib/layout: positions for the event-dependency graph (pure; ELK runs in elk.worker.ts). */
export * from "./types";
export { laneLayout, NO_AGENT, type LaneLayoutOptions } from "./lanes";
export { nodesInView, edgesForNodes, adjacency, visibleRect, centreOn, EDGE_WINDOW, type EdgeWindowOptions, type Viewport } from "./viewport";
export { elkInput, elkResult, ELK_MAX_NODES } from "./elk";
export { compactGraph, expandGraph, type CompactGraph } from "./compact";
export { nodeTimingOf, startNsOf, tokensOf, timingCells, traceStartNs, type NodeTiming, type NodeTokens, type TimingCells } from "./timing";
