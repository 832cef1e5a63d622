"""The service's Prometheus metrics, in the text exposition format (no client library needed):
submissions by final status, submit-to-result latency as a histogram, and the queue's length
(read from the gradebook when scraped)."""

from __future__ import annotations

import threading

BUCKETS = (0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.results: dict[str, int] = {"done": 0, "failed": 0}
        self.refused: dict[str, int] = {}
        self._counts = [0] * len(BUCKETS)
        self._sum = 0.0
        self._n = 0

    def finished(self, status: str, seconds: float | None) -> None:
        with self._lock:
            self.results[status] = self.results.get(status, 0) + 1
            if seconds is not None:
                self._n += 1
                self._sum += seconds
                for i, bound in enumerate(BUCKETS):
                    if seconds <= bound:
                        self._counts[i] += 1

    def refusal(self, code: str) -> None:
        with self._lock:
            self.refused[code] = self.refused.get(code, 0) + 1

    def render(self, queue: dict[str, int]) -> str:
        with self._lock:
            lines = [
                "# HELP coursegen_service_queue_length Submissions waiting or being graded, by status.",
                "# TYPE coursegen_service_queue_length gauge",
            ]
            for status in ("queued", "grading"):
                lines.append(f'coursegen_service_queue_length{{status="{status}"}} {queue.get(status, 0)}')
            lines += [
                "# HELP coursegen_service_results_total Submissions graded since the service started, by status.",
                "# TYPE coursegen_service_results_total counter",
            ]
            for status, count in sorted(self.results.items()):
                lines.append(f'coursegen_service_results_total{{status="{status}"}} {count}')
            lines += [
                "# HELP coursegen_service_refusals_total Requests refused, by reason.",
                "# TYPE coursegen_service_refusals_total counter",
            ]
            for code, count in sorted(self.refused.items()):
                lines.append(f'coursegen_service_refusals_total{{reason="{code}"}} {count}')
            lines += [
                "# HELP coursegen_service_grading_seconds Time from a submission's receipt to its result.",
                "# TYPE coursegen_service_grading_seconds histogram",
            ]
            for bound, count in zip(BUCKETS, self._counts):
                lines.append(f'coursegen_service_grading_seconds_bucket{{le="{bound:g}"}} {count}')
            lines.append(f'coursegen_service_grading_seconds_bucket{{le="+Inf"}} {self._n}')
            lines.append(f"coursegen_service_grading_seconds_sum {self._sum:.6f}")
            lines.append(f"coursegen_service_grading_seconds_count {self._n}")
        return "\n".join(lines) + "\n"
