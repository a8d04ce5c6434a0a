/**
 * @module Simulated server metrics: plausible, deterministic per server and minute (a per-server
 * baseline, a slow daily wave and hashed noise), and marked `simulated: true`. A server that
 * is not running uses no CPU or memory. Figures a test holds replace the current sample's.
 */
import { createHash } from 'node:crypto';

export interface MetricsSample {
  ts: string;
  cpu_percent: number;
  memory_percent: number;
  disk_percent: number;
}

export interface MetricsBody {
  simulated: true;
  cpu_percent: number;
  memory_percent: number;
  disk_percent: number;
  sampled_at: string;
  series: MetricsSample[];
}

const STEP_MS = 5 * 60_000;
const SAMPLES = 12;

/** A number in [0, 1) from a string, stable across runs. */
function unit(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 4_294_967_296;
}

function round1(value: number): number {
  return Math.round(Math.min(100, Math.max(0, value)) * 10) / 10;
}

function sampleAt(serverId: string, atMs: number, running: boolean): MetricsSample {
  const minute = Math.floor(atMs / 60_000);
  const wave = Math.sin((minute / (24 * 60)) * 2 * Math.PI);
  const disk = 8 + unit(`${serverId}:disk`) * 40 + (minute % 10_000) / 2_000;
  if (!running) return { ts: new Date(minute * 60_000).toISOString(), cpu_percent: 0, memory_percent: 0, disk_percent: round1(disk) };
  const cpu = 5 + unit(`${serverId}:cpu`) * 30 + wave * 10 + unit(`${serverId}:cpu:${minute}`) * 15;
  const memory = 20 + unit(`${serverId}:mem`) * 40 + wave * 5 + unit(`${serverId}:mem:${minute}`) * 5;
  return { ts: new Date(minute * 60_000).toISOString(), cpu_percent: round1(cpu), memory_percent: round1(memory), disk_percent: round1(disk) };
}

/** Metrics of one server at `nowMs`: the current sample and up to an hour of 5-minute history since it was created. */
export function simulatedMetrics(serverId: string, createdAtMs: number, running: boolean, nowMs: number): MetricsBody {
  const current = sampleAt(serverId, nowMs, running);
  const series: MetricsSample[] = [];
  for (let i = SAMPLES - 1; i >= 0; i -= 1) {
    const at = nowMs - i * STEP_MS;
    if (at < createdAtMs) continue;
    series.push(i === 0 ? current : sampleAt(serverId, at, true));
  }
  return {
    simulated: true,
    cpu_percent: current.cpu_percent,
    memory_percent: current.memory_percent,
    disk_percent: current.disk_percent,
    sampled_at: current.ts,
    series,
  };
}

/** The metrics with the figures a test holds (`PUT /v1/servers/{id}/metrics`) in place of the current sample's. */
export function withHeldFigures(body: MetricsBody, held: Partial<Record<'cpu_percent' | 'memory_percent' | 'disk_percent', number>>): MetricsBody {
  if (Object.keys(held).length === 0) return body;
  const current = { ...body.series[body.series.length - 1] ?? { ts: body.sampled_at, cpu_percent: body.cpu_percent, memory_percent: body.memory_percent, disk_percent: body.disk_percent }, ...held };
  return { ...body, ...held, series: [...body.series.slice(0, -1), current] };
}
