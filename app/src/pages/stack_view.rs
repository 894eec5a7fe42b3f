//! Which view of a stack a page shows (its table, graph, discovery or plans), shared by the
//! stack's frame and the panels that link between views.

/// Which view of the stack a page shows.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum StackView {
    Table,
    Graph,
    Discover,
    Plans,
}

impl StackView {
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            StackView::Table => "",
            StackView::Graph => "/graph",
            StackView::Discover => "/discover",
            StackView::Plans => "/plans",
        }
    }
}
