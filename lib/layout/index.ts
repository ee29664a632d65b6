/** lib/layout: positions for the event-dependency graph (pure; ELK runs in elk.worker.ts). */
export * from "./types";
export { laneLayout, NO_AGENT, type LaneLayoutOptions } from "./lanes";
export { nodesInView, edgesForNodes, adjacency, visibleRect, centreOn, EDGE_WINDOW, type EdgeWindowOptions, type Viewport } from "./viewport";
export { elkInput, elkResult, ELK_MAX_NODES } from "./elk";
export { compactGraph, expandGraph, type CompactGraph } from "./compact";
export { nodeImportWarningsOf, importWarningCounts, IMPORT_WARNINGS_KEY } from "./warnings";
export { nodeTimingOf, startNsOf, tokensOf, timingCells, traceStartNs, type NodeTiming, type NodeTokens, type TimingCells } from "./timing";
export { fitView, laneHeaderBoxes, FIT_MIN_ZOOM, FIT_MAX_ZOOM, LANE_HEADER_MIN_PX, LANE_HEADER_ROW_PX, type FitOptions, type FitMode, type FitResult, type LaneHeaderBox } from "./fit";
export {
  ROW_PX, LANE_PX, NODE_W, NODE_H, ROW_Y0, LANE_X0, BLOCK_ROWS, DETAIL_MIN_ZOOM, MIN_ZOOM, MAX_ZOOM,
  rowPoint, rowsExtent, rowsInView, rowAtTop, visibleRows, minZoom, viewAtRow, clampViewport, layeredWindow, blocksFor, overviewDensity,
  type ClampBox,
} from "./windowed";
export { graphScene, type Placement, type LanesPlacement, type LayeredPlacement, type Scene, type SceneNode, type SceneEdge } from "./scene";
