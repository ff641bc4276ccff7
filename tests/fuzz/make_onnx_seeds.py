#!/usr/bin/python3
"""Writes onnx_import seeds for the ops that index by data (ArgMax, CumSum,
Trilu, Max, GatherElements, OneHot in one chain that runs, and a
ScatterElements whose index is out of range: an InvalidArgument, never a
write out of bounds), RoiAlign (a batch index out of range, and one that
samples), ConvTranspose with output_shape into a comparison and a loss, and
an opset-9 model that ONNX's version converter lifts, an LSTM (with
per-row lengths), GRU and Einsum chain, a window sized by data, a video
chain (3-D Conv and pools, Sin, Acosh) and a ReverseSequence whose lengths
overrun the time axis, into tests/fuzz/corpus/onnx_import/.

    /usr/bin/python3 tests/fuzz/make_onnx_seeds.py   # Debian's python3-onnx

(Run it from outside the repository root, whose onnx/ folder would shadow
the onnx package: cd /tmp && /usr/bin/python3 .../make_onnx_seeds.py.)
"""
import os

import onnx
from onnx import helper, TensorProto, numpy_helper
import numpy as np
out=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', 'onnx_import') + '/'
def save(name, nodes, inputs, outputs, inits=[], opset=16):
    g=helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    m=helper.make_model(g, opset_imports=[helper.make_opsetid('',opset)])
    m.ir_version=8
    onnx.checker.check_model(m)
    onnx.save(m, out+name+'.onnx')
x=helper.make_tensor_value_info('x', TensorProto.FLOAT, [2,4])
y=helper.make_tensor_value_info('y', TensorProto.FLOAT, [2,4])
# An index from data out of range: an InvalidArgument, never a write out of bounds.
bad=numpy_helper.from_array(np.array([[0,1],[17,-1]],dtype=np.int64),'bad')
upd=numpy_helper.from_array(np.array([[1,2],[3,4]],dtype=np.float32),'upd')
save('scatter_elements_bad_index',[helper.make_node('ScatterElements',['x','bad','upd'],['y'],name='n3',axis=1,reduction='add')],[x],[y],[bad,upd])
# The new ops in one chain that runs.
idx=numpy_helper.from_array(np.array([[3,-1],[0,2]],dtype=np.int64),'idx')
axis=numpy_helper.from_array(np.array(1,dtype=np.int64),'axis')
depth=numpy_helper.from_array(np.array(4,dtype=np.int64),'depth')
vals=numpy_helper.from_array(np.array([0,1],dtype=np.float32),'vals')
nodes=[helper.make_node('CumSum',['x','axis'],['c'],reverse=1),
 helper.make_node('Trilu',['c'],['t'],upper=0),
 helper.make_node('Max',['t','x'],['m']),
 helper.make_node('GatherElements',['m','idx'],['g'],axis=1),
 helper.make_node('ArgMax',['g'],['a'],axis=1,keepdims=0),
 helper.make_node('OneHot',['a','depth','vals'],['y'])]
save('index_ops_chain',nodes,[x],[y],[idx,axis,depth,vals])
# RoiAlign: a batch index from data out of range (an InvalidArgument naming
# the RoI), and one that samples.
feat=helper.make_tensor_value_info('feat', TensorProto.FLOAT, [1,2,4,4])
rois=numpy_helper.from_array(np.array([[0,0,3,3],[1,1,2,2]],dtype=np.float32),'rois')
bad_batch=numpy_helper.from_array(np.array([0,5],dtype=np.int64),'bad_batch')
good_batch=numpy_helper.from_array(np.array([0,0],dtype=np.int64),'good_batch')
pooled=helper.make_tensor_value_info('pooled', TensorProto.FLOAT, [2,2,2,2])
for name, batch in (('roi_align_bad_batch_index', 'bad_batch'), ('roi_align', 'good_batch')):
    save(name,[helper.make_node('RoiAlign',['feat','rois',batch],['pooled'],output_height=2,
         output_width=2,sampling_ratio=0,spatial_scale=1.0)],[feat],[pooled],
         [rois,bad_batch,good_batch])
# ConvTranspose with output_shape, a comparison and a loss after it.
w=numpy_helper.from_array(np.ones((2,1,3,3),dtype=np.float32),'w')
target=numpy_helper.from_array(np.array([[[0,1,0,1,0,1,0,1]]*8],dtype=np.int64).reshape(1,8,8),'target')
loss=helper.make_tensor_value_info('loss', TensorProto.FLOAT, [])
save('conv_transpose_loss',[helper.make_node('ConvTranspose',['feat','w'],['up'],strides=[2,2],
     output_shape=[8,8]),
 helper.make_node('GreaterOrEqual',['up','up'],['same']),
 helper.make_node('SoftmaxCrossEntropyLoss',['up','target'],['loss'],reduction='mean',ignore_index=1)],
 [feat],[loss],[w,target])
# An opset-9 model: ONNX's version converter lifts it first.
save('opset9_upsample',[helper.make_node('Upsample',['x','scales'],['y9'],mode='nearest')],
     [x],[helper.make_tensor_value_info('y9', TensorProto.FLOAT, [2,8])],
     [numpy_helper.from_array(np.array([1,2],dtype=np.float32),'scales')],opset=9)
# The composed converters: an LSTM with per-row lengths (masks), a GRU and an
# Einsum in one chain that runs, and a window whose size comes from data.
seq=helper.make_tensor_value_info('seq', TensorProto.FLOAT, [3,2,2])
rng=np.random.default_rng(0)
def weights(name, shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
lens=numpy_helper.from_array(np.array([3,1],dtype=np.int32),'lens')
head=weights('head', (3,2))
save('recurrent_einsum',[
 helper.make_node('LSTM',['seq','lw','lr','','lens'],['ly','lh'],hidden_size=3,direction='bidirectional'),
 helper.make_node('Reshape',['ly','flat'],['ly3']),
 helper.make_node('GRU',['ly3','gw','gr'],['gy','gh'],hidden_size=3,linear_before_reset=1),
 helper.make_node('Einsum',['gh','head'],['out'],equation='dbh,hk->bk')],
 [seq],[helper.make_tensor_value_info('out', TensorProto.FLOAT, [2,2])],
 [weights('lw',(2,12,2)),weights('lr',(2,12,3)),lens,
  numpy_helper.from_array(np.array([3,2,6],dtype=np.int64),'flat'),
  weights('gw',(1,9,6)),weights('gr',(1,9,3)),head],opset=14)
size=helper.make_tensor_value_info('size', TensorProto.INT64, [])
save('window_from_data',[helper.make_node('ArgMax',['x'],['am'],axis=1,keepdims=0),
 helper.make_node('ReduceMax',['am'],['size'],keepdims=0),
 helper.make_node('HannWindow',['size'],['w'])],
 [x],[helper.make_tensor_value_info('w', TensorProto.FLOAT, [None])],opset=17)
# Video: a 3-D Conv (grouped, strided, dilated in depth), 3-D max and average
# pools, the trigonometric ops, and ReverseSequence with lengths from data
# (a length past the time axis is an InvalidArgument from its gather).
clip=helper.make_tensor_value_info('clip', TensorProto.FLOAT, [1,2,5,6,6])
save('video_conv3d_pools',[
 helper.make_node('Conv',['clip','w3','b3'],['c3'],group=2,strides=[2,1,2],pads=[1,1,0,1,0,1],
                  dilations=[2,1,1]),
 helper.make_node('MaxPool',['c3'],['mp'],kernel_shape=[2,2,2],pads=[0,1,1,1,0,0],ceil_mode=1),
 helper.make_node('AveragePool',['mp'],['ap'],kernel_shape=[1,2,2],count_include_pad=1),
 helper.make_node('Sin',['ap'],['s']),
 helper.make_node('Acosh',['s'],['out3'])],
 [clip],[helper.make_tensor_value_info('out3', TensorProto.FLOAT, [None,None,None,None,None])],
 [weights('w3',(4,1,3,3,2)),weights('b3',(4,))],opset=16)
steps=helper.make_tensor_value_info('steps', TensorProto.FLOAT, [4,3,2])
save('reverse_sequence_lengths',[
 helper.make_node('ReverseSequence',['steps','rlens'],['rev'],batch_axis=1,time_axis=0)],
 [steps],[helper.make_tensor_value_info('rev', TensorProto.FLOAT, [4,3,2])],
 [numpy_helper.from_array(np.array([4,1,9],dtype=np.int64),'rlens')],opset=16)
