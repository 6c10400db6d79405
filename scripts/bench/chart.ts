import { accessSync, constants, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { SystemSummary } from './comparison';

const COLOURS: Record<string, string> = {
  keel: '#1f6feb',
  'keel-viewed': '#8250df',
  floor: '#6e7781',
  'ai-sdk': '#d1242f',
};
const WIDTH = 460;
const HEIGHT = 300;
const MARGIN = { left: 70, right: 20, top: 40, bottom: 50 };

/**
 * Two panels, ms per call and history bytes per call against N (sequential scenario), one line per
 * system, as SVG. A log scale for N, a linear one from zero for the values.
 */
export function chartSvg(summaries: readonly SystemSummary[]): string {
  const sequential = summaries.filter((row) => row.scenario === 'sequential' && row.completed > 0);
  const panels = [
    panel('ms per tool call (median)', sequential, (row) => row.msPerCall.median, 0),
    panel('history bytes per tool call', sequential, (row) => row.bytesPerCall, WIDTH),
  ];
  const systems = [...new Set(sequential.map((row) => row.system))];
  const legend = systems
    .map(
      (system, index) =>
        `<rect x="${MARGIN.left + index * 110}" y="${HEIGHT + 8}" width="14" height="4" fill="${COLOURS[system] ?? '#000'}"/><text x="${MARGIN.left + index * 110 + 20}" y="${HEIGHT + 15}" font-size="12">${system}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH * 2}" height="${HEIGHT + 25}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>${panels.join('')}${legend}</svg>`;
}

function panel(
  title: string,
  rows: readonly SystemSummary[],
  value: (row: SystemSummary) => number,
  offset: number,
): string {
  const ns = [...new Set(rows.map((row) => row.calls))].sort((a, b) => a - b);
  const top = Math.max(1, ...rows.map(value).filter(Number.isFinite)) * 1.1;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const logMin = Math.log10(Math.min(...ns, 10));
  const logMax = Math.log10(Math.max(...ns, 100));
  const x = (n: number) =>
    offset +
    MARGIN.left +
    (logMax === logMin ? plotWidth / 2 : ((Math.log10(n) - logMin) / (logMax - logMin)) * plotWidth);
  const y = (v: number) => MARGIN.top + plotHeight - (v / top) * plotHeight;
  const parts: string[] = [];
  parts.push(`<text x="${offset + WIDTH / 2}" y="22" font-size="14" text-anchor="middle">${title}</text>`);
  parts.push(
    `<line x1="${offset + MARGIN.left}" y1="${MARGIN.top + plotHeight}" x2="${offset + MARGIN.left + plotWidth}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`,
    `<line x1="${offset + MARGIN.left}" y1="${MARGIN.top}" x2="${offset + MARGIN.left}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`,
  );
  for (let tick = 0; tick <= 4; tick++) {
    const v = (top / 4) * tick;
    parts.push(
      `<text x="${offset + MARGIN.left - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end">${formatTick(v)}</text>`,
      `<line x1="${offset + MARGIN.left}" y1="${y(v)}" x2="${offset + MARGIN.left + plotWidth}" y2="${y(v)}" stroke="#eee"/>`,
    );
  }
  for (const n of ns) {
    parts.push(
      `<text x="${x(n)}" y="${MARGIN.top + plotHeight + 18}" font-size="11" text-anchor="middle">N=${n}</text>`,
    );
  }
  for (const system of new Set(rows.map((row) => row.system))) {
    const points = rows
      .filter((row) => row.system === system && Number.isFinite(value(row)))
      .sort((a, b) => a.calls - b.calls)
      .map((row) => [x(row.calls), y(value(row))] as const);
    const colour = COLOURS[system] ?? '#000';
    if (points.length > 1) {
      parts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map((p) => p.join(',')).join(' ')}"/>`,
      );
    }
    for (const [px, py] of points) parts.push(`<circle cx="${px}" cy="${py}" r="4" fill="${colour}"/>`);
  }
  return parts.join('');
}

function formatTick(value: number): string {
  if (value >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(1)}M`;
  if (value >= 1024) return `${Math.round(value / 1024)}K`;
  return value.toFixed(value < 10 ? 1 : 0);
}

/**
 * Renders the SVG to PNG in Debian's Chromium through playwright-core (never a downloaded
 * browser). Returns why not, when it cannot.
 */
export async function writeChartPng(
  svg: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const executablePath = env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    return `no Chromium at ${executablePath} (apt-get install chromium, or set KEEL_CHROMIUM)`;
  }
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH * 2, height: HEIGHT + 25 } });
    await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
    writeFileSync(file, await page.locator('svg').screenshot());
    return undefined;
  } finally {
    await browser.close();
  }
}
