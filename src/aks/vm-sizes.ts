// The VM sizes aksemu knows, for the system-pool minimum (2 vCPU, 4 GiB; spec M7) and node capacity.
// Unknown sizes are accepted: this is a floor check, not a catalogue of Azure.
export interface VmSize {
  vcpus: number;
  memoryGiB: number;
}

const SIZES: Record<string, VmSize> = {
  standard_b1s: { vcpus: 1, memoryGiB: 1 },
  standard_b1ms: { vcpus: 1, memoryGiB: 2 },
  standard_b2s: { vcpus: 2, memoryGiB: 4 },
  standard_b2ms: { vcpus: 2, memoryGiB: 8 },
  standard_b4ms: { vcpus: 4, memoryGiB: 16 },
  standard_a1_v2: { vcpus: 1, memoryGiB: 2 },
  standard_a2_v2: { vcpus: 2, memoryGiB: 4 },
  standard_ds1_v2: { vcpus: 1, memoryGiB: 3.5 },
  standard_ds2_v2: { vcpus: 2, memoryGiB: 7 },
  standard_ds3_v2: { vcpus: 4, memoryGiB: 14 },
  standard_d2s_v3: { vcpus: 2, memoryGiB: 8 },
  standard_d4s_v3: { vcpus: 4, memoryGiB: 16 },
  standard_d2s_v5: { vcpus: 2, memoryGiB: 8 },
  standard_d4s_v5: { vcpus: 4, memoryGiB: 16 },
  standard_d8s_v5: { vcpus: 8, memoryGiB: 32 },
};

export function vmSize(name: string): VmSize | undefined {
  return SIZES[name.toLowerCase()];
}
