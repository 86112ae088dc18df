//! How far a set of jobs has got: which operations still wait for others, and when each
//! job's last operation ended. Every engine that runs job DAGs walks them through this.

use super::{Job, Op};

/// The operations of several jobs under one global numbering (job 0's first, then job 1's,
/// ...), with the dependencies each still waits for and each job's latest end time (`T`: the
/// engine's clock, seconds or picoseconds).
#[derive(Debug, Clone)]
pub struct JobsProgress<'a, T> {
    jobs: &'a [Job],
    /// First global op id of each job, and one past the last.
    offset: Vec<u32>,
    /// Operations each operation still waits for.
    waiting: Vec<u32>,
    end: Vec<T>,
}

impl<'a, T: Copy + PartialOrd + Default> JobsProgress<'a, T> {
    /// Nothing done yet.
    pub fn new(jobs: &'a [Job]) -> Self {
        let mut offset = vec![0u32];
        for j in jobs {
            offset.push(offset.last().unwrap() + j.dag.ops().len() as u32);
        }
        let waiting = jobs
            .iter()
            .flat_map(|j| (0..j.dag.ops().len() as u32).map(|op| j.dag.indegree(op)))
            .collect();
        Self {
            jobs,
            offset,
            waiting,
            end: vec![T::default(); jobs.len()],
        }
    }

    /// Number of operations over every job.
    pub fn num_ops(&self) -> usize {
        self.waiting.len()
    }

    /// The global ids of the operations that wait for nothing.
    pub fn initially_ready(&self) -> Vec<u32> {
        (0..self.waiting.len() as u32)
            .filter(|&g| self.waiting[g as usize] == 0)
            .collect()
    }

    /// The job of global op `g` (its index and itself) and the operation.
    pub fn op(&self, g: u32) -> (usize, &'a Job, Op) {
        let j = self.offset.partition_point(|&o| o <= g) - 1;
        let job = &self.jobs[j];
        (j, job, job.dag.ops()[(g - self.offset[j]) as usize])
    }

    /// Op `g` ended at `t`: records it as its job's latest end so far and pushes onto `ready`
    /// every successor that no longer waits.
    pub fn finish(&mut self, g: u32, t: T, ready: &mut Vec<u32>) {
        let j = self.offset.partition_point(|&o| o <= g) - 1;
        if t > self.end[j] {
            self.end[j] = t;
        }
        let base = self.offset[j];
        for &s in self.jobs[j].dag.successors(g - base) {
            let w = &mut self.waiting[(base + s) as usize];
            // An engine that ends an operation twice would release its successors early.
            *w = w
                .checked_sub(1)
                .expect("an operation was reported finished twice");
            if *w == 0 {
                ready.push(base + s);
            }
        }
    }

    /// When each job's last operation so far ended.
    pub fn job_end(&self) -> &[T] {
        &self.end
    }
}
