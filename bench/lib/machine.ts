// The machine a bench ran on, recorded with its figures: they mean little without it.
import os from "node:os";

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  node: string;
  platform: string;
  totalMemoryMb: number;
  /** 1, 5 and 15 minute load averages when the bench started and ended: other work skews figures */
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemoryMb: Math.round(os.totalmem() / 2 ** 20),
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** True when other processes keep the machine busy (1-minute load above half its cores). */
export function isBusy(loadAverage: readonly number[], cores: number): boolean {
  return (loadAverage[0] ?? 0) > cores / 2;
}
