//! The generated server and client talk over tonic's in-memory transport (a duplex pipe).

use ferry_rpc::pulumirpc::resource_provider_client::ResourceProviderClient;
use ferry_rpc::pulumirpc::resource_provider_server::{ResourceProvider, ResourceProviderServer};
use ferry_rpc::pulumirpc::{
    GetSchemaRequest, GetSchemaResponse, PluginInfo, ReadRequest, ReadResponse,
};
use tokio_stream::StreamExt;
use tonic::{Request, Response, Status};

#[derive(Default)]
struct Fixed;

#[tonic::async_trait]
impl ResourceProvider for Fixed {
    async fn get_plugin_info(&self, _: Request<()>) -> Result<Response<PluginInfo>, Status> {
        Ok(Response::new(PluginInfo { version: "1.2.3".into() }))
    }
    async fn get_schema(
        &self,
        r: Request<GetSchemaRequest>,
    ) -> Result<Response<GetSchemaResponse>, Status> {
        Ok(Response::new(GetSchemaResponse {
            schema: format!("{{\"version\":{}}}", r.into_inner().version),
        }))
    }
    async fn read(&self, r: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        let r = r.into_inner();
        Ok(Response::new(ReadResponse { id: r.id, properties: r.properties, ..Default::default() }))
    }
}

#[tokio::test]
async fn client_and_server_round_trip_in_memory() {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(ResourceProviderServer::new(Fixed))
            // One connection, then an incoming stream that never ends (ending it stops the server).
            .serve_with_incoming(
                tokio_stream::once(Ok::<_, std::io::Error>(server_io))
                    .chain(tokio_stream::pending()),
            )
            .await
            .unwrap();
    });
    let mut client_io = Some(client_io);
    let channel = tonic::transport::Endpoint::try_from("http://in-memory")
        .unwrap()
        .connect_with_connector(tower::service_fn(move |_| {
            let io = client_io.take();
            async move {
                io.map(hyper_util::rt::TokioIo::new)
                    .ok_or_else(|| std::io::Error::other("used once"))
            }
        }))
        .await
        .unwrap();
    let mut client = ResourceProviderClient::new(channel);
    assert_eq!(client.get_plugin_info(()).await.unwrap().into_inner().version, "1.2.3");
    assert_eq!(
        client
            .get_schema(GetSchemaRequest { version: 1, ..Default::default() })
            .await
            .unwrap()
            .into_inner()
            .schema,
        "{\"version\":1}"
    );
    let read = client
        .read(ReadRequest { id: "abc".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(read.id, "abc");
    // Everything not implemented answers Unimplemented, as a real plugin's older version would.
    let err = client
        .handshake(ferry_rpc::pulumirpc::ProviderHandshakeRequest::default())
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unimplemented);
}
