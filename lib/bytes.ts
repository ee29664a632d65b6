/** Byte counts for people (framework-free; used by the import route and page). */

/** "256 MiB", "1.5 KiB", "900 B" (binary units). */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${i === 0 ? v : Number(v.toFixed(1))} ${units[i]}`;
}
