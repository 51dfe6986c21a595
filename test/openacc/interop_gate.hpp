// A gate on a CUDA stream, for the interop test (interop_gate.cu, nvcc): a kernel that holds the
// stream until the host opens the gate (or a timeout passes), so the test can see that everything
// it queued after the gate was queued without the host waiting for the GPU.
#pragma once

struct CUstream_st;

namespace gate {
/// CUDA sees a device.
bool cuda_device();
/// Queues the gate kernel on s; it spins until open() or until timeout_ms have passed.
void close(CUstream_st* s, int timeout_ms);
/// Lets the gate kernel finish.
void open();
/// After the stream has finished: whether the gate kernel gave up waiting (the host did not open
/// it in time, e.g. because it was waiting for the GPU itself).
bool timed_out();
}  // namespace gate
