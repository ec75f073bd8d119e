//! Runbooks: redacted, split into chunks, embedded, stored and indexed; listed; deleted.

use platform::Invalid;

use super::{Actor, Intelligence, IntelligenceError, MAX_CHUNKS, MAX_DOCUMENTS};
use crate::chunk::chunks;
use crate::index::{ChunkTerms, TermIndex, Unit};
use crate::input::DocumentInput;
use crate::model::{RagDocument, RagDocumentStatus, ReferenceKind};
use crate::redact::redact;
use crate::store::{StoreError, StoredChunk};

impl<I: TermIndex> Intelligence<I> {
    /// `POST /api/v1/rag/documents`: a runbook, redacted, split into chunks, embedded when
    /// configured (before anything is written: a failed embedding stores nothing), stored and
    /// indexed. READY when this returns.
    pub async fn create_document(
        &self,
        input: DocumentInput,
        actor: &Actor,
    ) -> Result<RagDocument, IntelligenceError> {
        let title = redact(&input.title);
        let content = redact(&input.content);
        let texts = chunks(&content.text);
        if texts.len() > MAX_CHUNKS {
            return Err(Invalid::field(
                "content",
                format!(
                    "splits into {} chunks; at most {MAX_CHUNKS} are kept",
                    texts.len()
                ),
            )
            .into());
        }
        let embeddings = self
            .embed(&texts)
            .await
            .map_err(IntelligenceError::Embeddings)?;
        let id = uuid::Uuid::new_v4().to_string();
        let mut doc = RagDocument {
            id: id.clone(),
            title: title.text,
            tags: input.tags,
            chunks: u32::try_from(texts.len()).unwrap_or(u32::MAX),
            bytes: u64::try_from(content.text.len()).unwrap_or(u64::MAX),
            redactions: title.found.values().sum::<usize>() + content.count(),
            status: RagDocumentStatus::Indexing,
            embeddings_model: self.embedder.as_ref().map(|e| e.model().to_string()),
            created_by: actor.id.clone(),
            created_at: self.clock.timestamp(),
        };
        self.store.begin_document(&doc, MAX_DOCUMENTS).await?;
        let mut embeddings = embeddings.unwrap_or_default().into_iter();
        let stored: Vec<StoredChunk> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| StoredChunk {
                document_id: id.clone(),
                index: u32::try_from(i).unwrap_or(u32::MAX),
                text: text.clone(),
                embedding: embeddings.next(),
            })
            .collect();
        self.store.put_chunks(&stored).await?;
        // The title is part of every chunk's terms: a runbook's subject finds all its steps.
        let terms: Vec<ChunkTerms> = texts
            .iter()
            .map(|t| ChunkTerms::of(&format!("{}\n{t}", doc.title)))
            .collect();
        self.index
            .put(&Unit::new(ReferenceKind::Runbook, id.as_str()), &terms)
            .await?;
        self.store
            .set_document_status(&id, RagDocumentStatus::Indexing, RagDocumentStatus::Ready)
            .await?;
        doc.status = RagDocumentStatus::Ready;
        tracing::info!(document = %id, chunks = doc.chunks, bytes = doc.bytes, "runbook indexed");
        Ok(doc)
    }

    /// `GET /api/v1/rag/documents`: newest first, a page (after `cursor`, the previous
    /// page's).
    pub async fn documents(
        &self,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<(Vec<RagDocument>, Option<String>), IntelligenceError> {
        Ok(self.store.documents(limit, cursor).await?)
    }

    /// `DELETE /api/v1/rag/documents/{id}`: by its author or an admin. Marked DELETING (no
    /// longer retrieved), its postings removed, then its chunks and record. Repeating it
    /// after a failure finishes it.
    pub async fn delete_document(&self, id: &str, actor: &Actor) -> Result<(), IntelligenceError> {
        let doc = self
            .store
            .document(id)
            .await?
            .ok_or(IntelligenceError::NotFound("Document"))?;
        if !actor.may_change(&doc.created_by) {
            return Err(IntelligenceError::Forbidden(
                "Only the document's author or an admin may delete it",
            ));
        }
        if doc.status != RagDocumentStatus::Deleting {
            match self
                .store
                .set_document_status(id, doc.status, RagDocumentStatus::Deleting)
                .await
            {
                Ok(()) | Err(StoreError::Changed) => {}
                Err(e) => return Err(e.into()),
            }
        }
        self.index
            .remove(&Unit::new(ReferenceKind::Runbook, id))
            .await?;
        self.store.delete_document(&doc).await?;
        Ok(())
    }
}
