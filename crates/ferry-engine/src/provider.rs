//! What the import pipeline needs of a provider, whether it is a launched plugin process
//! ([`crate::plugin::ProviderPlugin`]) or any other `pulumirpc.ResourceProvider` endpoint
//! ([`GrpcProvider`], e.g. an in-memory server in tests).

use std::collections::HashMap;
use std::sync::Arc;

use ferry_rpc::pulumirpc::resource_provider_client::ResourceProviderClient;
use ferry_rpc::pulumirpc::{
    CheckRequest, CheckResponse, CreateRequest, CreateResponse, DeleteRequest, DiffRequest,
    DiffResponse, GetSchemaRequest, ListRequest, ListResponse, ReadRequest, ReadResponse,
    UpdateRequest, UpdateResponse,
};
use tonic::transport::Channel;

use crate::plugin::{PluginError, ProviderPlugin};

#[tonic::async_trait]
pub trait Provider: Send + Sync {
    fn package(&self) -> &str;
    async fn read(&self, request: ReadRequest) -> Result<ReadResponse, PluginError>;
    async fn check(&self, request: CheckRequest) -> Result<CheckResponse, PluginError>;
    async fn diff(&self, request: DiffRequest) -> Result<DiffResponse, PluginError>;
    async fn get_schema(&self) -> Result<String, PluginError>;
    /// Only the step executor calls these, and only for an update the user asked for.
    async fn create(&self, request: CreateRequest) -> Result<CreateResponse, PluginError>;
    async fn update(&self, request: UpdateRequest) -> Result<UpdateResponse, PluginError>;
    async fn delete(&self, request: DeleteRequest) -> Result<(), PluginError>;
    /// One page of `List` (discovery): results, then a continuation or `Computed`.
    async fn list_page(&self, request: ListRequest) -> Result<Vec<ListResponse>, PluginError>;
}

#[tonic::async_trait]
impl Provider for ProviderPlugin {
    fn package(&self) -> &str {
        &self.package
    }
    async fn read(&self, request: ReadRequest) -> Result<ReadResponse, PluginError> {
        ProviderPlugin::read(self, request).await
    }
    async fn check(&self, request: CheckRequest) -> Result<CheckResponse, PluginError> {
        ProviderPlugin::check(self, request).await
    }
    async fn diff(&self, request: DiffRequest) -> Result<DiffResponse, PluginError> {
        ProviderPlugin::diff(self, request).await
    }
    async fn get_schema(&self) -> Result<String, PluginError> {
        ProviderPlugin::get_schema(self).await
    }
    async fn create(&self, request: CreateRequest) -> Result<CreateResponse, PluginError> {
        ProviderPlugin::create(self, request).await
    }
    async fn update(&self, request: UpdateRequest) -> Result<UpdateResponse, PluginError> {
        ProviderPlugin::update(self, request).await
    }
    async fn delete(&self, request: DeleteRequest) -> Result<(), PluginError> {
        ProviderPlugin::delete(self, request).await
    }
    async fn list_page(&self, request: ListRequest) -> Result<Vec<ListResponse>, PluginError> {
        ProviderPlugin::list_page(self, request).await
    }
}

/// A provider reached over an existing gRPC channel.
pub struct GrpcProvider {
    package: String,
    client: ResourceProviderClient<Channel>,
}

impl GrpcProvider {
    pub fn new(package: impl Into<String>, channel: Channel) -> GrpcProvider {
        GrpcProvider { package: package.into(), client: ResourceProviderClient::new(channel) }
    }

    fn fail(&self, method: &'static str, status: tonic::Status) -> PluginError {
        PluginError::Call {
            package: self.package.clone(),
            method,
            code: format!("{:?}", status.code()),
            message: status.message().to_string(),
        }
    }
}

#[tonic::async_trait]
impl Provider for GrpcProvider {
    fn package(&self) -> &str {
        &self.package
    }
    async fn read(&self, request: ReadRequest) -> Result<ReadResponse, PluginError> {
        self.client
            .clone()
            .read(request)
            .await
            .map(|r| r.into_inner())
            .map_err(|s| self.fail("Read", s))
    }
    async fn check(&self, request: CheckRequest) -> Result<CheckResponse, PluginError> {
        self.client
            .clone()
            .check(request)
            .await
            .map(|r| r.into_inner())
            .map_err(|s| self.fail("Check", s))
    }
    async fn diff(&self, request: DiffRequest) -> Result<DiffResponse, PluginError> {
        self.client
            .clone()
            .diff(request)
            .await
            .map(|r| r.into_inner())
            .map_err(|s| self.fail("Diff", s))
    }
    async fn get_schema(&self) -> Result<String, PluginError> {
        self.client
            .clone()
            .get_schema(GetSchemaRequest::default())
            .await
            .map(|r| r.into_inner().schema)
            .map_err(|s| self.fail("GetSchema", s))
    }
    async fn create(&self, request: CreateRequest) -> Result<CreateResponse, PluginError> {
        self.client
            .clone()
            .create(request)
            .await
            .map(|r| r.into_inner())
            .map_err(|s| self.fail("Create", s))
    }
    async fn update(&self, request: UpdateRequest) -> Result<UpdateResponse, PluginError> {
        self.client
            .clone()
            .update(request)
            .await
            .map(|r| r.into_inner())
            .map_err(|s| self.fail("Update", s))
    }
    async fn delete(&self, request: DeleteRequest) -> Result<(), PluginError> {
        self.client
            .clone()
            .delete(request)
            .await
            .map(|r| r.into_inner())
            .map_err(|s| self.fail("Delete", s))
    }
    async fn list_page(&self, request: ListRequest) -> Result<Vec<ListResponse>, PluginError> {
        let mut stream =
            self.client.clone().list(request).await.map_err(|s| self.fail("List", s))?.into_inner();
        let mut page = Vec::new();
        while let Some(item) = stream.message().await.map_err(|s| self.fail("List", s))? {
            page.push(item);
        }
        Ok(page)
    }
}

/// Which configured provider a resource uses: its provider resource (reference or URN) and
/// that resource's inputs, the configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderInstance {
    pub package: String,
    pub version: Option<String>,
    /// The provider resource's reference (`urn::id`) or, for one the commit creates, its URN.
    pub key: String,
    pub config: ferry_property::PropertyMap,
}

/// Hands out configured providers. One instance per provider resource is shared by every
/// resource that uses it.
#[tonic::async_trait]
pub trait ProviderSource: Send + Sync {
    async fn provider(&self, instance: &ProviderInstance)
        -> Result<Arc<dyn Provider>, PluginError>;

    /// The package's schema (JSON text), asked of the provider once per package and version.
    async fn schema(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<String>, PluginError> {
        let instance = ProviderInstance {
            package: package.into(),
            version: version.map(str::to_string),
            key: format!("schema:{package}"),
            config: Default::default(),
        };
        Ok(Arc::new(self.provider(&instance).await?.get_schema().await?))
    }
}

/// A fixed set of providers by package (tests, or plugins launched up front).
#[derive(Default, Clone)]
pub struct FixedProviders(pub HashMap<String, Arc<dyn Provider>>);

#[tonic::async_trait]
impl ProviderSource for FixedProviders {
    async fn provider(
        &self,
        instance: &ProviderInstance,
    ) -> Result<Arc<dyn Provider>, PluginError> {
        let package = &instance.package;
        self.0.get(package).cloned().ok_or_else(|| PluginError::NotFound {
            package: package.to_string(),
            binary: format!("pulumi-resource-{package}"),
            looked_in: Vec::new(),
        })
    }
}
