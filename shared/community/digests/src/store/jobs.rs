//! Generation jobs and the daily schedule's progress.

use platform::dynamo::{n, s, AttributeValue, Attributes, DynamoError};

use super::{job_key, schedule_key, DigestStore, ScheduleRun};
use crate::input::DigestDate;
use crate::model::DigestGenerationJob;

impl DigestStore {
    /// Creates a job; `false` when one with this id exists.
    pub async fn create_job(&self, job: &DigestGenerationJob) -> Result<bool, DynamoError> {
        let mut item = job_key(&job.id);
        item.insert("id".into(), s(&job.id));
        item.insert("targetUserId".into(), s(&job.target_user_id));
        item.insert("digestDate".into(), s(&job.digest_date));
        item.insert("status".into(), s(&job.status));
        item.insert("force".into(), AttributeValue::Bool(job.force));
        item.insert("createdAt".into(), s(&job.created_at));
        if let Some(m) = &job.message {
            item.insert("message".into(), s(m));
        }
        match self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// A job by id.
    pub async fn job(&self, id: &str) -> Result<Option<DigestGenerationJob>, DynamoError> {
        let t = self.table.name();
        let Some(item) = self.table.get(job_key(id)).await? else {
            return Ok(None);
        };
        Ok(Some(DigestGenerationJob {
            id: item.string(t, "id")?,
            target_user_id: item.string(t, "targetUserId")?,
            digest_date: item.string(t, "digestDate")?,
            status: item.string(t, "status")?,
            message: item.opt_string("message"),
            force: item.opt_bool("force").unwrap_or(false),
            digest_id: item.opt_string("digestId"),
            created_at: item.string(t, "createdAt")?,
            finished_at: item.opt_string("finishedAt"),
        }))
    }

    /// Claims a job to run it: PENDING, or RUNNING since before `stale_before` (a run that
    /// died), becomes RUNNING. `false` when another run has it or it is finished.
    pub async fn claim_job(&self, id: &str, stale_before: &str) -> Result<bool, DynamoError> {
        let result = self
            .table
            .update_item()
            .set_key(Some(job_key(id)))
            .update_expression("SET #status = :running, startedAt = :now ADD attempts :one")
            .condition_expression(
                "attribute_exists(pk) AND (#status = :pending OR (#status = :running AND startedAt < :stale))",
            )
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":running", s("RUNNING"))
            .expression_attribute_values(":pending", s("PENDING"))
            .expression_attribute_values(":now", s(self.clock.timestamp()))
            .expression_attribute_values(":stale", s(stale_before))
            .expression_attribute_values(":one", n(1))
            .send()
            .await;
        match result {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }

    /// Records a job's final status (`GENERATED`, `SKIPPED`, `FAILED`).
    pub async fn finish_job(
        &self,
        id: &str,
        status: &str,
        message: &str,
        digest_id: Option<&str>,
    ) -> Result<(), DynamoError> {
        let mut update = self
            .table
            .update_item()
            .set_key(Some(job_key(id)))
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":status", s(status))
            .expression_attribute_values(":message", s(message))
            .expression_attribute_values(":now", s(self.clock.timestamp()));
        update = match digest_id {
            Some(d) => update
                .update_expression("SET #status = :status, message = :message, finishedAt = :now, digestId = :digest")
                .expression_attribute_values(":digest", s(d)),
            None => update.update_expression("SET #status = :status, message = :message, finishedAt = :now"),
        };
        update
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("UpdateItem", &e))
    }

    /// The schedule's progress for `date`.
    pub async fn schedule_run(&self, date: DigestDate) -> Result<ScheduleRun, DynamoError> {
        let t = self.table.name();
        Ok(
            match self.table.get(schedule_key(&date.to_string())).await? {
                None => ScheduleRun::default(),
                Some(item) => ScheduleRun {
                    cursor: item.opt_string("cursor"),
                    done: item.opt_bool("done").unwrap_or(false),
                    jobs: item.counter(t, "jobs")?,
                },
            },
        )
    }

    /// Saves the schedule's progress for `date`.
    pub async fn save_schedule_run(
        &self,
        date: DigestDate,
        run: &ScheduleRun,
    ) -> Result<(), DynamoError> {
        let mut item = schedule_key(&date.to_string());
        if let Some(c) = &run.cursor {
            item.insert("cursor".into(), s(c));
        }
        item.insert("done".into(), AttributeValue::Bool(run.done));
        item.insert("jobs".into(), n(run.jobs));
        item.insert("updatedAt".into(), s(self.clock.timestamp()));
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("PutItem", &e))
    }
}
