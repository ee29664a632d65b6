/** lib/layout: positions for the event-dependency graph (pure; ELK runs in elk.worker.ts). */
export * from "./types";
export { laneLayout, NO_AGENT, type LaneLayoutOptions } from "./lanes";
export { nodesInView, edgesForNodes, adjacency, visibleRect, centreOn, EDGE_WINDOW, type EdgeWindowOptions, type Viewport } from "./viewport";
export { elkInput, elkResult, ELK_MAX_NODES } from "./elk";
export { compactGraph, expandGraph, type CompactGraph } from "./compact";
export { nodeImportWarningsOf, importWarningCounts, IMPORT_WARNINGS_KEY } from "./warnings";
export { nodeTimingOf, startNsOf, tokensOf, timingCells, traceStartNs, type NodeTiming, type NodeTokens, type TimingCells } from "./timing";
export { fitView, laneHeaderBoxes, FIT_MIN_ZOOM, FIT_MAX_ZOOM, LANE_HEADER_MIN_PX, LANE_HEADER_ROW_PX, type FitOptions, type FitMode, type FitResult, type LaneHeaderBox } from "./fit";
export { ROW_PX, LANE_PX, NODE_W, NODE_H, BLOCK_ROWS, DETAIL_MIN_ZOOM, MAX_ZOOM as ROW_MAX_ZOOM, visibleRows, minZoom, clampTop, centreRow, blocksFor, overviewDensity, type RowView } from "./windowed";
