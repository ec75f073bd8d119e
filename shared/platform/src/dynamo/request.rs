//! The DynamoDB requests the stores build, serialised as the JSON protocol wants them. Their
//! setters have the SDK's names (`key_condition_expression`, `expression_attribute_values`,
//! ...), so a request reads as it did with the SDK; [`Table`](super::Table) starts each one
//! on its table.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{AttributeValue, Item};
use crate::aws::{AwsError, JsonClient};

fn is_empty_map<K, V>(map: &HashMap<K, V>) -> bool {
    map.is_empty()
}

/// `table_name`, `key`/`set_key`.
macro_rules! key_setters {
    ($($ty:ty),*) => {$(
        impl $ty {
            pub fn table_name(mut self, name: impl Into<String>) -> Self {
                self.table_name = name.into();
                self
            }
            /// One attribute of the key.
            pub fn key(mut self, name: impl Into<String>, value: AttributeValue) -> Self {
                self.key.insert(name.into(), value);
                self
            }
            pub fn set_key(mut self, key: Option<Item>) -> Self {
                self.key = key.unwrap_or_default();
                self
            }
        }
    )*};
}

/// `condition_expression`, `expression_attribute_names`, `expression_attribute_values`.
macro_rules! expression_setters {
    ($($ty:ty),*) => {$(
        impl $ty {
            pub fn condition_expression(mut self, expression: impl Into<String>) -> Self {
                self.condition_expression = Some(expression.into());
                self
            }
            pub fn set_condition_expression(mut self, expression: Option<String>) -> Self {
                self.condition_expression = expression;
                self
            }
            /// `#placeholder` → attribute name.
            pub fn expression_attribute_names(
                mut self,
                placeholder: impl Into<String>,
                name: impl Into<String>,
            ) -> Self {
                self.expression_attribute_names.insert(placeholder.into(), name.into());
                self
            }
            /// `:placeholder` → value.
            pub fn expression_attribute_values(
                mut self,
                placeholder: impl Into<String>,
                value: AttributeValue,
            ) -> Self {
                self.expression_attribute_values.insert(placeholder.into(), value);
                self
            }
            pub fn set_expression_attribute_values(mut self, values: Option<Item>) -> Self {
                self.expression_attribute_values = values.unwrap_or_default();
                self
            }
        }
    )*};
}

/// A put, alone ([`PutItem`]) or in a transaction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Put {
    pub table_name: String,
    pub item: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_expression: Option<String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_names: HashMap<String, String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_values: Item,
}

impl Put {
    pub fn table_name(mut self, name: impl Into<String>) -> Self {
        self.table_name = name.into();
        self
    }
    pub fn set_item(mut self, item: Option<Item>) -> Self {
        self.item = item.unwrap_or_default();
        self
    }
}

/// A delete, alone ([`DeleteItem`]) or in a transaction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Delete {
    pub table_name: String,
    pub key: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_expression: Option<String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_names: HashMap<String, String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_values: Item,
}

/// An update, alone ([`UpdateItem`]) or in a transaction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Update {
    pub table_name: String,
    pub key: Item,
    pub update_expression: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_expression: Option<String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_names: HashMap<String, String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_values: Item,
}

impl Update {
    pub fn update_expression(mut self, expression: impl Into<String>) -> Self {
        self.update_expression = expression.into();
        self
    }
}

/// A condition on an item a transaction does not write.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ConditionCheck {
    pub table_name: String,
    pub key: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_expression: Option<String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_names: HashMap<String, String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub expression_attribute_values: Item,
}

key_setters!(Delete, Update, ConditionCheck);
expression_setters!(Put, Delete, Update, ConditionCheck);

/// One write of a TransactWriteItems.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum TransactWriteItem {
    Put(Put),
    Delete(Delete),
    Update(Update),
    ConditionCheck(ConditionCheck),
}

/// A call that sends `T` as operation `OPERATION` of DynamoDB: [`PutItem`], [`UpdateItem`],
/// [`DeleteItem`]. Setters are `T`'s; [`Self::send`] makes the call.
#[derive(Clone, Debug)]
pub struct Call<T> {
    client: JsonClient,
    operation: &'static str,
    input: T,
}

/// A PutItem (`Table::put_item`).
pub type PutItem = Call<Put>;
/// An UpdateItem (`Table::update_item`).
pub type UpdateItem = Call<Update>;
/// A DeleteItem (`Table::delete_item`).
pub type DeleteItem = Call<Delete>;

impl<T: Serialize> Call<T> {
    pub(crate) fn new(client: JsonClient, operation: &'static str, input: T) -> Self {
        Self {
            client,
            operation,
            input,
        }
    }

    /// Sets the request's fields.
    pub fn with(mut self, set: impl FnOnce(T) -> T) -> Self {
        self.input = set(self.input);
        self
    }

    pub fn input(&self) -> &T {
        &self.input
    }

    /// Makes the call. Nothing of the output is read: the stores ask for none.
    pub async fn send(self) -> Result<(), AwsError> {
        let _: serde::de::IgnoredAny = self.client.call(self.operation, &self.input).await?;
        Ok(())
    }
}

/// Forwards `T`'s setters to a [`Call<T>`].
macro_rules! forward {
    ($ty:ty: $($name:ident($($arg:ident: $argty:ty),*)),* $(,)?) => {
        impl Call<$ty> {$(
            pub fn $name(self, $($arg: $argty),*) -> Self {
                self.with(|input| input.$name($($arg),*))
            }
        )*}
    };
}

forward!(Put:
    table_name(name: impl Into<String>),
    set_item(item: Option<Item>),
    condition_expression(expression: impl Into<String>),
    set_condition_expression(expression: Option<String>),
    expression_attribute_names(placeholder: impl Into<String>, name: impl Into<String>),
    expression_attribute_values(placeholder: impl Into<String>, value: AttributeValue),
    set_expression_attribute_values(values: Option<Item>),
);
forward!(Update:
    table_name(name: impl Into<String>),
    key(name: impl Into<String>, value: AttributeValue),
    set_key(key: Option<Item>),
    update_expression(expression: impl Into<String>),
    condition_expression(expression: impl Into<String>),
    set_condition_expression(expression: Option<String>),
    expression_attribute_names(placeholder: impl Into<String>, name: impl Into<String>),
    expression_attribute_values(placeholder: impl Into<String>, value: AttributeValue),
    set_expression_attribute_values(values: Option<Item>),
);
forward!(Delete:
    table_name(name: impl Into<String>),
    key(name: impl Into<String>, value: AttributeValue),
    set_key(key: Option<Item>),
    condition_expression(expression: impl Into<String>),
    set_condition_expression(expression: Option<String>),
    expression_attribute_names(placeholder: impl Into<String>, name: impl Into<String>),
    expression_attribute_values(placeholder: impl Into<String>, value: AttributeValue),
    set_expression_attribute_values(values: Option<Item>),
);

/// A Query (`Table::query`), sent by `Table::query_all` or [`Query::send`].
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Query {
    #[serde(skip)]
    client: Option<JsonClient>,
    table_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    index_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_condition_expression: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filter_expression: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    projection_expression: Option<String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    expression_attribute_names: HashMap<String, String>,
    #[serde(skip_serializing_if = "is_empty_map")]
    expression_attribute_values: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan_index_forward: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consistent_read: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exclusive_start_key: Option<Item>,
}

/// One page of a Query.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueryOutput {
    #[serde(default)]
    pub items: Option<Vec<Item>>,
    #[serde(default)]
    pub last_evaluated_key: Option<Item>,
}

impl Query {
    pub(crate) fn new(client: JsonClient, table: &str) -> Self {
        Self {
            client: Some(client),
            table_name: table.to_string(),
            index_name: None,
            key_condition_expression: None,
            filter_expression: None,
            projection_expression: None,
            expression_attribute_names: HashMap::new(),
            expression_attribute_values: Item::new(),
            scan_index_forward: None,
            limit: None,
            consistent_read: None,
            exclusive_start_key: None,
        }
    }

    pub fn table_name(mut self, name: impl Into<String>) -> Self {
        self.table_name = name.into();
        self
    }
    pub fn index_name(mut self, name: impl Into<String>) -> Self {
        self.index_name = Some(name.into());
        self
    }
    pub fn key_condition_expression(mut self, expression: impl Into<String>) -> Self {
        self.key_condition_expression = Some(expression.into());
        self
    }
    pub fn filter_expression(mut self, expression: impl Into<String>) -> Self {
        self.filter_expression = Some(expression.into());
        self
    }
    pub fn projection_expression(mut self, expression: impl Into<String>) -> Self {
        self.projection_expression = Some(expression.into());
        self
    }
    pub fn expression_attribute_names(
        mut self,
        placeholder: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        self.expression_attribute_names
            .insert(placeholder.into(), name.into());
        self
    }
    pub fn expression_attribute_values(
        mut self,
        placeholder: impl Into<String>,
        value: AttributeValue,
    ) -> Self {
        self.expression_attribute_values
            .insert(placeholder.into(), value);
        self
    }
    pub fn scan_index_forward(mut self, forward: bool) -> Self {
        self.scan_index_forward = Some(forward);
        self
    }
    pub fn limit(mut self, limit: i32) -> Self {
        self.limit = Some(limit);
        self
    }
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = Some(consistent);
        self
    }
    pub fn set_exclusive_start_key(mut self, key: Option<Item>) -> Self {
        self.exclusive_start_key = key;
        self
    }

    /// Reads one page.
    pub async fn send(&self) -> Result<QueryOutput, AwsError> {
        match &self.client {
            Some(client) => client.call("Query", self).await,
            None => Err(AwsError::Config("a Query built without a client".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{n, s};
    use super::*;

    #[test]
    fn requests_serialise_in_pascal_case_without_empty_fields() {
        let update = Update::default()
            .table_name("t")
            .key("pk", s("a"))
            .update_expression("ADD #c :one")
            .expression_attribute_names("#c", "count")
            .expression_attribute_values(":one", n(1));
        assert_eq!(
            serde_json::to_value(TransactWriteItem::Update(update)).expect("json"),
            json!({"Update": {
                "TableName": "t", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD #c :one",
                "ExpressionAttributeNames": {"#c": "count"},
                "ExpressionAttributeValues": {":one": {"N": "1"}}
            }})
        );
        let put = Put::default().table_name("t").set_item(Some(Item::new()));
        assert_eq!(
            serde_json::to_value(&put).expect("json"),
            json!({"TableName": "t", "Item": {}})
        );
    }
}
