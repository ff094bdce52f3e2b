"""The app layer of REBEL Explorer: Streamlit state, components, page views and figures."""
